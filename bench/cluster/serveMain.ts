// The agentlog command as the benchmark runs it: bundled once with the benchmark's agent (bundle.ts),
// so a restarted process is up in a fraction of a second instead of compiling TypeScript again.
import { exitQuietlyOnClosedPipe, main } from '../../lib/cli/main.js'

exitQuietlyOnClosedPipe()
process.exitCode = await main(process.argv.slice(2))
