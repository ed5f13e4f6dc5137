// Built-in tools for `agentlog chat --tools`, so the ReAct loop can be tried on a real model: the
// current time and reading a file (allowed), and running a shell command (asks first, showing the
// exact command). The command runs in its own process group; the reply's AbortSignal kills the
// whole group (the shell and everything it started), SIGTERM then SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { z } from 'zod'
import { defineTool } from '../tools.js'

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
  execute: ({ command }, { signal }) => new Promise((resolve, reject) => {
    const child = spawn(command, { shell: true, detached: process.platform !== 'win32', stdio: ['ignore', 'pipe', 'pipe'] })
    const stop = () => killGroup(child)
    let output = ''
    const take = (chunk: Buffer) => {
      if (output.length < MAX_OUTPUT) output += chunk.toString('utf8')
    }
    child.stdout.on('data', take)
    child.stderr.on('data', take)
    child.on('error', (error) => {
      signal.removeEventListener('abort', stop)
      reject(error)
    })
    child.on('close', (code, killedBy) => {
      signal.removeEventListener('abort', stop)
      const status = code === null ? `killed by ${killedBy}` : `exit code ${code}`
      resolve({ output: `${output.slice(0, MAX_OUTPUT)}\n[${status}]`, state: code === 0 ? 'success' : 'error' })
    })
    if (signal.aborted) stop()
    else signal.addEventListener('abort', stop, { once: true })
  }),
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
