// Coverage counters for the generated cases (how many steps of each kind ran, which reply endings,
// pauses and late tool results were reached), printed with FUZZ_STATS=1 so a reader can see that
// the generators reach the interesting cases and not only the easy ones.
const counts = new Map<string, number>()

export const count = (key: string, n = 1): void => {
  counts.set(key, (counts.get(key) ?? 0) + n)
}

export const printStats = (title: string): void => {
  if (process.env.FUZZ_STATS !== '1') return
  const rows = [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `  ${k}: ${v}`)
  process.stdout.write(`\n${title}\n${rows.join('\n')}\n`)
  counts.clear()
}
