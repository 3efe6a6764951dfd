// Where a managed asset's login is kept: its own control record, beside (not inside) the asset, so
// listing and showing assets never carries it. Every process on the control plane reads the same one.
import { key, type ControlStore, type Op } from '../../control/store.js'
import type { ManagedLogin } from './provision.js'

const loginKey = (assetId: string) => key('dblogin', assetId)

export function managedLoginOf(store: ControlStore, assetId: string): Promise<ManagedLogin | undefined> {
  return store.get<ManagedLogin>(loginKey(assetId))
}

export function loginOps(assetId: string, login: ManagedLogin): Op[] {
  return [{ type: 'put', key: loginKey(assetId), value: login }]
}

/** What a hard delete removes of the asset's login (its database and role are dropped by the registry). */
export function managedLoginKeys(assetId: string): string[] {
  return [loginKey(assetId)]
}
