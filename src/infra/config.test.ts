import { describe, expect, it, vi } from 'vitest'
import { ConfigError, loadConfig } from './config.js'

describe('configuration', () => {
  it('uses defaults when nothing is given', () => {
    const c = loadConfig()
    expect(c.collabPort).toBe(1234)
    expect(c.apiPort).toBe(8080)
    expect(c.dataDir.endsWith('/data')).toBe(true)
    expect(Object.isFrozen(c)).toBe(true)
  })

  it('flags beat environment variables, which beat defaults', () => {
    const c = loadConfig(['--collab-port', '4000', '--demo'], { TANDEM_COLLAB_PORT: '5000', TANDEM_API_PORT: '6000' })
    expect(c.collabPort).toBe(4000)
    expect(c.apiPort).toBe(6000)
    expect(c.demo).toBe(true)
  })

  it('accepts --flag=value and comma lists', () => {
    const c = loadConfig(['--cors-origins=https://a.example, https://b.example', '--api-port=0'])
    expect(c.corsOrigins).toEqual(['https://a.example', 'https://b.example'])
    expect(c.apiPort).toBe(0)
  })

  it.each([
    [['--collab-port', 'abc'], /--collab-port: expected a non-negative integer/],
    [['--max-message-bytes', '10'], /--max-message-bytes: must be at least 1024/],
    [['--bogus'], /unknown option --bogus/],
    [['--demo=maybe'], /--demo: expected a boolean/],
    [['--log-level', 'loud'], /log-level/],
    [['--public-ws-url', 'not a url'], /public URL/],
  ])('refuses %j with a message naming the setting', (argv, message) => {
    expect(() => loadConfig(argv)).toThrow(ConfigError)
    expect(() => loadConfig(argv)).toThrow(message)
  })

  it('refuses --redis-url without --postgres-url, naming both, and never echoes the URL', () => {
    const secret = 'redis://:hunter2@cache.internal:6379'
    expect(() => loadConfig(['--redis-url', secret])).toThrow(/--redis-url.*--postgres-url/)
    expect(() => loadConfig([], { TANDEM_REDIS_URL: secret })).toThrow(/--redis-url.*--postgres-url/)
    try {
      loadConfig(['--redis-url', 'http://:hunter2@x', '--postgres-url', 'postgres://p@h/d'])
      expect.unreachable()
    } catch (err) {
      expect(String(err)).toMatch(/redis-url: expected a redis:\/\/ or rediss:\/\/ URL/)
      expect(String(err)).not.toContain('hunter2')
    }
    const c = loadConfig(['--redis-url', secret, '--postgres-url', 'postgres://p@h/d'])
    expect(c.redisUrl).toBe(secret)
    expect(loadConfig([]).redisUrl).toBe('')
  })

  it('reads --trusted-proxies as addresses and CIDRs and refuses one it cannot read, naming it', () => {
    expect(loadConfig([], { TANDEM_TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8,fd00::/8' }).trustedProxies).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      'fd00::/8',
    ])
    expect(loadConfig().trustedProxies).toEqual([])
    expect(() => loadConfig(['--trusted-proxies', '10.0.0.0/8,lb.internal'])).toThrow(
      /^trusted-proxies: not an address or CIDR: "lb.internal"$/,
    )
  })

  it('accepts --history-cache-docs (retired) with a deprecation warning, and it sets nothing', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined)
    try {
      const config = loadConfig(['--history-cache-docs', '16', '--log-level', 'debug'])
      expect(config.logLevel).toBe('debug')
      expect(config).not.toHaveProperty('historyCacheDocs')
      expect(warn).toHaveBeenCalledTimes(1)
      expect(warn.mock.calls[0]![0]).toMatch(/^--history-cache-docs does nothing .*remove it$/)
      expect(warn.mock.calls[0]![1]).toMatchObject({ type: 'DeprecationWarning' })
      loadConfig([], { TANDEM_HISTORY_CACHE_DOCS: '4' })
      expect(warn.mock.calls[1]![0]).toMatch(/^TANDEM_HISTORY_CACHE_DOCS does nothing/)
      loadConfig()
      expect(warn).toHaveBeenCalledTimes(2)
    } finally {
      warn.mockRestore()
    }
  })

  it('names the environment variable when its value is bad', () => {
    expect(() => loadConfig([], { TANDEM_IDLE_TIMEOUT_SEC: '-1' })).toThrow(/TANDEM_IDLE_TIMEOUT_SEC/)
  })
})
