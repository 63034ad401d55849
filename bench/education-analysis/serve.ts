/**
 * The gateway of `kgate serve` with the education analyses added to its operation table, for the education analysis
 * benchmark until the table serves them itself (setup.ts says when each is used). Same configuration (environment),
 * same database opening, same `startGateway`; logs "kgate listening" with its URL and stops gracefully on SIGTERM.
 */
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/app/database.ts';
import { startGateway } from '../../src/app/gateway.ts';
import { createLogger } from '../../src/logger.ts';
import { EDUCATION_ANALYSIS_OPERATIONS } from '../../src/surfaces/operations/education-analysis-operations.ts';
import { OPERATIONS } from '../../src/surfaces/operations/table.ts';

const config = loadConfig();
const logger = createLogger(config.logLevel);
const opened = await openDatabase(config, 'kgate-bench-education');
const operations = [...OPERATIONS, ...EDUCATION_ANALYSIS_OPERATIONS.filter((o) => !OPERATIONS.some((known) => known.id === o.id))];
const gateway = await startGateway(config, opened, { logger, operations });
logger.info({ url: gateway.url, database: config.database.kind }, 'kgate listening');
process.once('SIGTERM', () => {
  void gateway.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
