// The chat's terminal: one readline interface that echoes what the user types (a TTY echoes as it
// is typed; piped input is echoed after its prompt, so a transcript reads like a conversation),
// one question at a time, lines typed ahead kept in order, and Ctrl-C routed by what the chat is
// doing: while a reply runs it stops the reply; at an approval it answers INTERRUPTED; at the
// message prompt, twice in a row (or Ctrl-D) ends the chat. In a terminal, what is typed while a
// reply streams is not drawn into the reply: it is held and shown as the next input, or handed to
// the chat (which queues it for the agent, or steers the reply with a leading '!').
import { createInterface } from 'node:readline'
import { Writable } from 'node:stream'

export const INTERRUPTED = Symbol('interrupted')
export type Answer = string | null | typeof INTERRUPTED

export interface ChatTerminal {
  write(text: string): void
  /** A line of input; null at the end of input (Ctrl-D). A 'message' prompt is where Ctrl-C twice exits; an 'answer' returns INTERRUPTED on Ctrl-C. `initial` fills the line in a terminal. */
  ask(prompt: string, kind: 'message' | 'answer', initial?: string): Promise<Answer>
  /** Runs `work` with Ctrl-C calling `stop` (the reply in progress); a line typed meanwhile goes to `typed` when given (else it is held as the next input). */
  whileReplying<T>(stop: () => void, work: () => Promise<T>, typed?: (line: string) => void): Promise<T>
  /** Puts lines back in front of the typed-ahead ones (they answer the next questions). */
  putBack(lines: string[]): void
  close(): void
}

export const chatTerminal = (input: NodeJS.ReadStream = process.stdin, output: NodeJS.WriteStream = process.stdout): ChatTerminal => {
  const tty = !!input.isTTY
  // readline draws what is typed on `screen`, which is muted while a reply streams.
  let muted = false
  const screen = Object.defineProperty(new Writable({
    write(chunk, _encoding, done) {
      if (!muted) output.write(chunk)
      done()
    },
  }), 'columns', { get: () => output.columns })
  const rl = createInterface({ input, output: tty ? screen : output, terminal: tty })
  /** Lines typed ahead; `shown` when the terminal already showed them as typed. */
  const queued: { line: string; shown: boolean }[] = []
  let pending: ((answer: Answer) => void) | null = null
  let ended = false
  let mode: 'idle' | 'message' | 'answer' = 'idle'
  let stopReply: (() => void) | null = null
  let onTyped: ((line: string) => void) | null = null
  let armedExit = false
  const write = (text: string) => void output.write(text)

  const settle = (answer: Answer) => {
    const take = pending
    pending = null
    take?.(answer)
  }
  rl.on('line', (line) => (pending ? settle(line) : onTyped && line.trim() ? onTyped(line) : queued.push({ line, shown: tty && !muted })))
  rl.on('close', () => {
    ended = true
    settle(null)
  })

  const onInterrupt = () => {
    if (stopReply) return stopReply()
    if (mode === 'answer' && pending) {
      write('^C\n')
      return settle(INTERRUPTED)
    }
    if (armedExit) return rl.close()
    armedExit = true
    write('\n(press Ctrl-C again or Ctrl-D to exit)\n')
    if (mode === 'message') rl.prompt()
  }
  rl.on('SIGINT', onInterrupt)
  process.on('SIGINT', onInterrupt)

  return {
    write,
    async ask(prompt, kind, initial) {
      mode = kind
      rl.setPrompt(prompt)
      if (!ended) rl.prompt()
      else write(prompt)
      const typed = queued.shift()
      if (tty && !ended && !typed && initial) rl.write(initial)
      const answer = typed ? typed.line : ended ? null : await new Promise<Answer>((resolve) => (pending = resolve))
      mode = 'idle'
      if (typeof answer === 'string') {
        armedExit = false
        if (!tty || (typed && !typed.shown)) write(`${answer}\n`)
      } else if (answer === null) write('\n')
      return answer
    },
    async whileReplying(stop, work, typed) {
      stopReply = stop
      onTyped = typed ?? null
      armedExit = false
      muted = tty
      try {
        return await work()
      } finally {
        stopReply = null
        onTyped = null
        muted = false
      }
    },
    putBack(lines) {
      queued.unshift(...lines.map((line) => ({ line, shown: true })))
    },
    close() {
      process.off('SIGINT', onInterrupt)
      rl.close()
    },
  }
}
