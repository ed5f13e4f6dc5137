// The `agentlog` CLI: a subcommand dispatcher over the `commands` map. A new subcommand is one
// file exporting a Command (see command.ts) plus one line in the map. The inspection commands
// (replay, inspect, validate, sessions, export) read logs only: they never call a model or run a tool. Exit codes:
// 0 ok, 1 failure, 2 usage.
import type { Command, Io } from './command.js'
import { isAgentError, UsageError } from './command.js'
import { chat } from './chat.js'
import { inspect } from './inspect.js'
import { replay } from './replay.js'
import { serve } from './serve.js'
import { sessions } from './sessions.js'
import { exportSession, importSession } from './transfer.js'
import { validate } from './validate.js'

export const commands: Record<string, Command> = { chat, replay, inspect, validate, sessions, export: exportSession, import: importSession, serve }

export const processIo: Io = {
  out: (text) => void process.stdout.write(`${text}\n`),
  err: (text) => void process.stderr.write(`${text}\n`),
}

const help = () => [
  'agentlog: chat with an agent, and inspect the event logs agents write.',
  '',
  'Commands:',
  ...Object.entries(commands).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}\n             ${c.usage}`),
  '',
  'Run agentlog COMMAND --help for one command.',
].join('\n')

export const main = async (argv: readonly string[], io: Io = processIo): Promise<number> => {
  const [name, ...args] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    ;(name === undefined ? io.err : io.out)(help())
    return name === undefined ? 2 : 0
  }
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined
  if (!command) {
    io.err(`agentlog: unknown command "${name}".\n\n${help()}`)
    return 2
  }
  if (args.includes('--help') || args.includes('-h')) {
    io.out(`${command.usage}\n  ${command.summary}`)
    return 0
  }
  try {
    return await command.run(args, io)
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`agentlog ${name}: ${error.message}\nusage: ${command.usage}`)
      return 2
    }
    if (isAgentError(error)) {
      io.err(`agentlog ${name}: ${error.message}`)
      return 1
    }
    throw error
  }
}
