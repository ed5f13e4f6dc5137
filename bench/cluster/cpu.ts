// CPU time from /proc (Linux), for bench:cluster's CPU per delivered event: a process's user+system
// time (a serve process is read just before it is killed or stopped), and the database's or NATS
// server's when they run on this machine (every `postgres` process, plus what the postmaster
// reaped from backends that ended; `nats-server`). Elsewhere (no /proc) every reading is 0.
import { readdirSync, readFileSync } from 'node:fs'

/** Clock ticks per second of /proc/PID/stat (USER_HZ, 100 on Linux). */
const TICKS = 100

/** Fields of /proc/PID/stat after the command: [utime, stime, cutime, cstime] in ms. */
const times = (pid: number | string): [number, number, number, number] | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // After the command: state is field 3, utime 14, stime 15, cutime 16, cstime 17 (1-based).
    return [11, 12, 13, 14].map((i) => (Number(fields[i]) * 1000) / TICKS) as [number, number, number, number]
  } catch {
    return null
  }
}

/** CPU ms a process has used so far (user + system); 0 when it cannot be read. */
export const processCpuMs = (pid: number | undefined): number => {
  const t = pid === undefined ? null : times(pid)
  return t ? t[0] + t[1] : 0
}

/** CPU ms of the local PostgreSQL or NATS server so far (all its processes and their reaped children); null when none runs here. */
export const serverCpuMs = (kind: 'postgres' | 'nats'): number | null => {
  const name = kind === 'postgres' ? 'postgres' : 'nats-server'
  let total = 0
  let found = false
  let entries: string[]
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e))
  } catch {
    return null
  }
  for (const pid of entries) {
    let comm: string
    try {
      comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim()
    } catch {
      continue
    }
    if (comm !== name) continue
    const t = times(pid)
    if (!t) continue
    found = true
    total += t[0] + t[1] + t[2] + t[3]
  }
  return found ? total : null
}
