// This load generator's own process: CPU pinning, open-file limit, result file stamps.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

export function pinSelf(cpus: string): boolean {
  try {
    execFileSync('taskset', ['-a', '-cp', cpus, String(process.pid)], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** Soft limit on open files; the bench cannot raise it for itself (Node has no setrlimit). */
export function openFileLimit(): number {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'))
    if (m) return m[1] === 'unlimited' ? Infinity : Number(m[1])
  } catch {
    // not Linux
  }
  return Infinity
}

export function stamp(d = new Date()): string {
  return d.toISOString().replace(/[:]/g, '-').replace(/\..+$/, 'Z')
}
