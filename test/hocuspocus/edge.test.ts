// The listener's edge limits apply to the Hocuspocus root URL as to /{org}/{doc_id}: the Origin
// allow-list (403 before the upgrade), upgrades per client address (429), and trusted proxies
// naming the client that those limits count.
import { afterEach, describe, expect, it } from 'vitest'
import { upgradeStatus } from '../helpers/raw-client.js'
import { startTandem, type Harness } from '../helpers/tandem.js'

describe('the Hocuspocus root URL at the edge', () => {
  let h: Harness
  afterEach(async () => h.close())

  it('refuses a foreign Origin with 403 and lets the listed one and none through', async () => {
    h = await startTandem({ wsOrigins: ['https://app.example'] }, { api: false })
    expect(await upgradeStatus(`${h.wsUrl}/`, { origin: 'https://evil.example' })).toBe(403)
    expect(await upgradeStatus(`${h.wsUrl}/`, { origin: 'https://app.example' })).toBe(101)
    expect(await upgradeStatus(`${h.wsUrl}/`)).toBe(101)
  })

  it('counts upgrades per client address, the one a trusted proxy names', async () => {
    h = await startTandem(
      { upgradeBurstPerIp: 2, upgradesPerSecPerIp: 1, trustedProxies: ['127.0.0.1'] },
      { api: false },
    )
    const from = (ip: string) => ({ 'x-forwarded-for': ip })
    expect(await upgradeStatus(`${h.wsUrl}/`, from('203.0.113.7'))).toBe(101)
    expect(await upgradeStatus(`${h.wsUrl}/`, from('203.0.113.7'))).toBe(101)
    expect(await upgradeStatus(`${h.wsUrl}/`, from('203.0.113.7'))).toBe(429)
    // another client behind the same proxy has its own budget
    expect(await upgradeStatus(`${h.wsUrl}/`, from('203.0.113.8'))).toBe(101)
  })
})
