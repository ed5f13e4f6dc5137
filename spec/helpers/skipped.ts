// The specs skipped because a service they need is missing here (PostgreSQL, Chromium): the
// availability checks note each skipped spec file, and npm test's closing report
// (spec/helpers/report.ts) counts them, which uvu cannot (a suite that never runs is no skip to it).
import { existsSync, readFileSync } from 'node:fs'
import { isAbsolute } from 'node:path'
import { fileURLToPath } from 'node:url'

export interface Skipped { file: string; tests: number; service: string }

const KEY = Symbol.for('agentlog.spec.skipped')
const specDir = fileURLToPath(new URL('../', import.meta.url))

/** The spec files skipped so far in this process (shared through globalThis with the report, which is loaded separately). */
export const skipped = (): Skipped[] => ((globalThis as Record<symbol, Skipped[]>)[KEY] ??= [])

/** The tests a spec file declares (`test('…'` calls), at least one: contract files declare theirs elsewhere. */
export const declaredTests = (source: string): number => Math.max(1, source.match(/^\s*(?:test|[a-z]+\.test|it)(?:\.only)?\(\s*[`'"]/gm)?.length ?? 0)

/** Notes a skipped spec file: `file` is its path (absolute, or spec/…) or a suite name such as 'web/chat'. */
export const noteSkipped = (file: string, service: string): void => {
  const named = file.replace(/(\.spec\.ts)?$/, '.spec.ts')
  const path = isAbsolute(named) ? named : `${specDir}${named.replace(/^spec\//, '')}`
  const tests = existsSync(path) ? declaredTests(readFileSync(path, 'utf8')) : 1
  skipped().push({ file: isAbsolute(named) ? named : `spec/${named.replace(/^spec\//, '')}`, tests, service })
}
