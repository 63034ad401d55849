import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('KGATE_TRUST_PROXY', () => {
  it('is off unless set; true means one proxy; a number says how many', () => {
    expect(loadConfig({}).trustedProxies).toBe(0);
    expect(loadConfig({ KGATE_TRUST_PROXY: 'false' }).trustedProxies).toBe(0);
    expect(loadConfig({ KGATE_TRUST_PROXY: 'true' }).trustedProxies).toBe(1);
    expect(loadConfig({ KGATE_TRUST_PROXY: '2' }).trustedProxies).toBe(2);
    expect(loadConfig({ KGATE_TRUST_PROXY: '0' }).trustedProxies).toBe(0);
  });

  it('refuses anything else, naming the variable', () => {
    for (const value of ['yes', '10', '-1', '1.5', 'loopback']) {
      expect(() => loadConfig({ KGATE_TRUST_PROXY: value })).toThrow(ConfigError);
      expect(() => loadConfig({ KGATE_TRUST_PROXY: value })).toThrow(/KGATE_TRUST_PROXY/);
    }
  });
});
