import { describe, expect, it } from 'vitest'
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

  it('names the environment variable when its value is bad', () => {
    expect(() => loadConfig([], { TANDEM_IDLE_TIMEOUT_SEC: '-1' })).toThrow(/TANDEM_IDLE_TIMEOUT_SEC/)
  })
})
