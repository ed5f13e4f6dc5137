// What a subcommand of the `agentlog` CLI is: a summary and usage for the help text, and a
// `run(args, io)` that returns the exit code. Output goes through `io`, so specs run commands in
// process and read what they print. Shared helpers: option parsing and loading a log file.
import { statSync } from 'node:fs'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { AgentError } from '../core/errors.js'
import { closest } from '../core/strictOptions.js'
import type { AgentEvent } from '../core/events.js'
import { fileError } from '../stores/file/ioError.js'
import { readLogFile } from '../stores/file/read.js'

export interface Io {
  out(text: string): void
  err(text: string): void
}

export interface Command {
  summary: string
  usage: string
  run(args: string[], io: Io): number | Promise<number>
}

/**
 * An AgentError, also one from a second copy of the module (the Postgres store is loaded with a
 * dynamic import, which a CommonJS loader such as the specs' may instantiate apart).
 */
export const isAgentError = (error: unknown): error is AgentError =>
  error instanceof AgentError || (error instanceof Error && error.name === 'AgentError' && typeof (error as AgentError).code === 'string')

/** A mistake in the command line: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError'
}

/** A command that cannot go on for a reason outside the command line (a port in use): one line, exit code 1. */
export class CommandError extends Error {
  override name = 'CommandError'
}

export interface Parsed {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>
  positionals: string[]
}

/** Parses `args` against `options`, requiring exactly `positionals` positional arguments. */
export const parse = (args: string[], options: NonNullable<ParseArgsConfig['options']>, positionals: string[]): Parsed => {
  let parsed: Parsed
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true })
  } catch (error) {
    const ambiguous = /^Option '(--[\w-]+)' argument is ambiguous/.exec((error as Error).message)
    const value = ambiguous ? args.find((arg, i) => args[i - 1] === ambiguous[1] && arg.startsWith('-')) : undefined
    if (ambiguous && value !== undefined) throw new UsageError(`${ambiguous[1]} ${value}: a value that starts with "-" is written ${ambiguous[1]}=${value}`)
    throw new UsageError(unknownFlag(error, Object.keys(options)) ?? (error as Error).message.split('\n').join(' ')) // parseArgs's own message spans lines
  }
  if (parsed.positionals.length !== positionals.length)
    throw new UsageError(`expected ${positionals.join(' ')}; received ${parsed.positionals.length ? parsed.positionals.join(' ') : 'nothing'}`)
  return parsed
}

/** parseArgs' refusal of an unknown flag, said with the closest known flag (`--idleMS`: did you mean `--idle-ms`?). */
const unknownFlag = (error: unknown, known: string[]): string | null => {
  const flag = (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'(-{1,2}[^'=]+)/.exec((error as Error).message)?.[1] : undefined
  if (!flag) return null
  const near = closest(flag.replace(/^-+/, ''), known)
  return `unknown option ${flag}.${near ? ` Did you mean --${near}?` : ''} Known: ${known.map((k) => `--${k}`).join(', ')}.`
}

/** A whole number option, or undefined when it is absent. */
export const intOption = (name: string, value: Parsed['values'][string]): number | undefined => {
  if (value === undefined) return undefined
  const n = Number(value)
  if (typeof value !== 'string' || !Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a whole number of at least 0; received ${String(value)}`)
  return n
}

/** Reads a log file (no lock, nothing changed) and notes a torn last line on stderr; a path that is not a readable file is an AgentError. */
export const loadLog = (path: string, io: Io): AgentEvent[] => {
  let read: ReturnType<typeof readLogFile>
  try {
    if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) throw Object.assign(new Error('EISDIR'), { code: 'EISDIR' })
    read = readLogFile(path)
  } catch (error) {
    throw fileError(error, path)
  }
  const { events, torn } = read
  if (torn) io.err(`note: ${path}:${torn.line} is torn (${torn.reason}, ${torn.bytes} bytes: a crash mid-write); it is left out, and cut when the log is next opened for writing.`)
  return events
}
