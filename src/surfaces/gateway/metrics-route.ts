import type { Metrics } from '../../metrics.ts';
import { send, type NodeHandler } from '../http/node-exchange.ts';

/**
 * The operator's metrics endpoint, served on its own port (KGATE_METRICS_PORT): `GET /metrics` in the Prometheus
 * text format, nothing else. It holds no note content, paths or credentials, only counts by route pattern.
 */
export function metricsHandler(metrics: Metrics): NodeHandler {
  return async (req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics') return send(res, 404, { 'Content-Type': 'text/plain' }, 'Not found. Metrics are at /metrics.\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' }, '');
    const { contentType, body } = await metrics.render();
    send(res, 200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' }, req.method === 'HEAD' ? undefined : body);
  };
}
