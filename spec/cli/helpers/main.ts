// The `agentlog` command run in this process (lib/cli/main.ts), its output collected: the exit
// code, stdout and stderr as text, and stdout's lines.
import { main } from '../../../lib/cli/main.js'

export const runMain = async (...argv: string[]) => {
  const out: string[] = []
  const err: string[] = []
  const code = await main(argv, { out: (t) => out.push(t), err: (t) => err.push(t) })
  return { code, out: out.join('\n'), err: err.join('\n'), lines: out.join('\n').split('\n') }
}
