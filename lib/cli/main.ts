// The `agentlog` CLI: a subcommand dispatcher over the `commands` map. A new subcommand is one
// file exporting a Command (see command.ts) plus one line in the map. The inspection commands
// (replay, inspect, validate, sessions, export) read logs only: they never call a model or run a
// tool. Exit codes: 0 ok, 1 failure (a one-line error with its code), 2 usage. A reader that
// closes the pipe (`agentlog replay f.jsonl | head`) ends the command quietly.
import { readFileSync } from 'node:fs'
import type { Command, Io } from './command.js'
import { CommandError, isAgentError, UsageError } from './command.js'
import { chat } from './chat.js'
import { escapeControls } from './escape.js'
import { inspect } from './inspect.js'
import { migrate } from './migrate.js'
import { replay } from './replay.js'
import { serve } from './serve.js'
import { sessions } from './sessions.js'
import { exportSession, importSession } from './transfer.js'
import { traceCommand } from './trace.js'
import { validate } from './validate.js'

export const commands: Record<string, Command> = { chat, replay, inspect, validate, sessions, export: exportSession, import: importSession, migrate, serve, trace: traceCommand }

export const processIo: Io = {
  out: (text) => void process.stdout.write(`${text}\n`),
  err: (text) => void process.stderr.write(`${text}\n`),
}

/** A closed stdout (the reader of a pipe went away) ends the process quietly instead of with an EPIPE stack. */
export const exitQuietlyOnClosedPipe = (): void => {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error
    process.exit(0)
  })
}

/** The version in package.json (two levels up from lib/cli in the sources, three from dist/lib/cli). */
export const version = (): string => {
  for (const up of ['../../package.json', '../../../package.json']) {
    try {
      const manifest = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as { name?: string; version?: string }
      if (manifest.name === 'agentlog' && manifest.version) return manifest.version
    } catch {
      // not at this level: try the next one
    }
  }
  return 'unknown'
}

const help = () => [
  'agentlog: chat with an agent, and inspect the event logs agents write.',
  '',
  'Commands:',
  ...Object.entries(commands).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}\n             ${c.usage}`),
  '',
  'Run agentlog COMMAND --help for one command; agentlog --version for the version.',
].join('\n')

export const main = async (argv: readonly string[], io: Io = processIo): Promise<number> => {
  const [name, ...args] = argv
  if (name === '--version' || name === '-v' || name === 'version') {
    io.out(version())
    return 0
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    ;(name === undefined ? io.err : io.out)(help())
    return name === undefined ? 2 : 0
  }
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined
  if (!command) {
    io.err(`agentlog: unknown command "${escapeControls(name)}".\n\n${help()}`)
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
      io.err(`agentlog ${name}: ${escapeControls(error.message)}\nusage: ${command.usage}`)
      return 2
    }
    if (isAgentError(error)) {
      io.err(`agentlog ${name}: ${error.code}: ${escapeControls(error.message)}`)
      return 1
    }
    if (error instanceof CommandError) {
      io.err(`agentlog ${name}: ${escapeControls(error.message)}`)
      return 1
    }
    throw error
  }
}
