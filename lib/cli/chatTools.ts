// Built-in tools for `agentlog chat --tools`, so the ReAct loop can be tried on a real model: the
// current time and reading a file (allowed), and running a shell command (asks first, showing the
// exact command, streaming its output). The command runs in its own process group; the reply's AbortSignal kills the
// whole group (the shell and everything it started), SIGTERM then SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process'
import { PassThrough } from 'node:stream'
import { readFile } from 'node:fs/promises'
import { z } from 'zod'
import { defineTool } from '../agent/tools.js'

const MAX_OUTPUT = 20_000

export const currentTime = defineTool({
  name: 'current_time', description: 'The current date and time (ISO 8601, UTC) and the local time zone.',
  input: z.object({}), concurrencySafe: true,
  execute: () => `${new Date().toISOString()} (time zone ${Intl.DateTimeFormat().resolvedOptions().timeZone})`,
})

export const readTextFile = defineTool({
  name: 'read_file', description: 'Reads a UTF-8 text file and returns its content (at most 20,000 characters).',
  input: z.object({ path: z.string().describe('The file path') }), concurrencySafe: true,
  execute: async ({ path }, { signal }) => {
    const text = await readFile(path, { encoding: 'utf8', signal })
    return text.length > MAX_OUTPUT ? `${text.slice(0, MAX_OUTPUT)}\n[... ${text.length - MAX_OUTPUT} more characters]` : text
  },
})

export const runCommand = defineTool({
  name: 'run_command', description: 'Runs a shell command and returns its output and exit code. The user confirms each command.',
  input: z.object({ command: z.string().describe('The exact shell command') }),
  permission: 'ask',
  // The output streams as the command prints it; stopping the reply kills the command and keeps what it printed.
  execute: async function* ({ command }, { signal }) {
    const child = spawn(command, { shell: true, detached: process.platform !== 'win32', stdio: ['ignore', 'pipe', 'pipe'] })
    const output = new PassThrough({ encoding: 'utf8' })
    child.stdout.pipe(output, { end: false })
    child.stderr.pipe(output, { end: false })
    let ended = false
    const closed = new Promise<string>((resolve, reject) => {
      child.on('error', (error) => {
        ended = true
        output.end()
        reject(error)
      })
      child.on('close', (code, killedBy) => {
        ended = true
        output.end()
        resolve(code === null ? `killed by ${killedBy}` : `exit code ${code}`)
      })
    })
    closed.catch(() => {}) // read below; a spawn error ends the output first
    const stop = () => killGroup(child)
    signal.addEventListener('abort', stop, { once: true })
    try {
      let size = 0
      for await (const text of output as AsyncIterable<string>) {
        if (size < MAX_OUTPUT) yield text.slice(0, MAX_OUTPUT - size)
        size += text.length
      }
      const status = await closed
      if (size > MAX_OUTPUT) yield `\n[... ${size - MAX_OUTPUT} more characters]`
      if (status !== 'exit code 0') throw new Error(status)
      yield `\n[${status}]`
    } finally {
      signal.removeEventListener('abort', stop)
      if (!ended) stop()
    }
  },
})

/** Ends a command and everything it started: SIGTERM to its process group, SIGKILL two seconds later if it is still there. */
const killGroup = (child: ChildProcess): void => {
  const send = (sig: NodeJS.Signals) => {
    try {
      if (process.platform === 'win32' || child.pid === undefined) child.kill(sig)
      else process.kill(-child.pid, sig)
    } catch {
      // already gone
    }
  }
  send('SIGTERM')
  setTimeout(() => send('SIGKILL'), 2000).unref()
}

export const chatTools = [currentTime, readTextFile, runCommand]
