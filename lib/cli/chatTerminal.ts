// The chat's terminal: one readline interface that echoes what the user types (a TTY echoes as it
// is typed; piped input is echoed after its prompt, so a transcript reads like a conversation),
// one question at a time, lines typed ahead kept in order, and Ctrl-C routed by what the chat is
// doing: while a reply runs it stops the reply; at an approval it answers INTERRUPTED; at the
// message prompt, twice in a row (or Ctrl-D) ends the chat.
import { createInterface } from 'node:readline'

export const INTERRUPTED = Symbol('interrupted')
export type Answer = string | null | typeof INTERRUPTED

export interface ChatTerminal {
  write(text: string): void
  /** A line of input; null at the end of input (Ctrl-D). A 'message' prompt is where Ctrl-C twice exits; an 'answer' returns INTERRUPTED on Ctrl-C. */
  ask(prompt: string, kind: 'message' | 'answer'): Promise<Answer>
  /** Runs `work` with Ctrl-C calling `stop` (the reply in progress). */
  whileReplying<T>(stop: () => void, work: () => Promise<T>): Promise<T>
  close(): void
}

export const chatTerminal = (input: NodeJS.ReadStream = process.stdin, output: NodeJS.WriteStream = process.stdout): ChatTerminal => {
  const tty = !!input.isTTY
  const rl = createInterface({ input, output, terminal: tty })
  const queued: string[] = []
  let pending: ((answer: Answer) => void) | null = null
  let ended = false
  let mode: 'idle' | 'message' | 'answer' = 'idle'
  let stopReply: (() => void) | null = null
  let armedExit = false
  const write = (text: string) => void output.write(text)

  const settle = (answer: Answer) => {
    const take = pending
    pending = null
    take?.(answer)
  }
  rl.on('line', (line) => (pending ? settle(line) : queued.push(line)))
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
    async ask(prompt, kind) {
      mode = kind
      rl.setPrompt(prompt)
      if (!ended) rl.prompt()
      else write(prompt)
      const answer = queued.length ? queued.shift()! : ended ? null : await new Promise<Answer>((resolve) => (pending = resolve))
      mode = 'idle'
      if (typeof answer === 'string') {
        armedExit = false
        if (!tty) write(`${answer}\n`)
      } else if (answer === null) write('\n')
      return answer
    },
    async whileReplying(stop, work) {
      stopReply = stop
      armedExit = false
      try {
        return await work()
      } finally {
        stopReply = null
      }
    },
    close() {
      process.off('SIGINT', onInterrupt)
      rl.close()
    },
  }
}
