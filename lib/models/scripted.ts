// A deterministic model for demos and tests: it plays scripted turns of chunks, one turn per call,
// with optional delays, and honours its AbortSignal (a pending delay rejects at once). Every request
// it received is kept in `requests`, so specs can check what the model was sent. Like a provider,
// it honours a forced `tool_choice`: a turn that does not call the named tool is a script error.
import { checkKnownKeys, optionKeys } from '../core/strictOptions.js'
import { abortError, sleep } from '../core/abort.js'
import type { ChatModel, ModelChunk, ModelRequest } from './model.js'

/** A scripted chunk, or a pause of `delay` milliseconds, or a failure thrown at that point. */
export type ScriptStep = ModelChunk | { type: 'delay'; ms: number } | { type: 'fail'; error: Error }
export type ScriptedTurn = ScriptStep[] | ((request: ModelRequest) => ScriptStep[])

export interface ScriptedModel extends ChatModel {
  readonly requests: ModelRequest[]
}

export interface ScriptedModelOptions {
  name?: string
  /** A delay before every chunk, in milliseconds (default 0: no timer at all). */
  chunkDelayMs?: number
  /** When the script runs out: 'repeat-last' replays the last turn, 'error' (default) throws. */
  onExhausted?: 'repeat-last' | 'error'
}

const SCRIPTED_OPTION_KEYS = optionKeys<ScriptedModelOptions>({ name: true, chunkDelayMs: true, onExhausted: true })

export const scriptedModel = (turns: ScriptedTurn[], options: ScriptedModelOptions = {}): ScriptedModel => {
  checkKnownKeys('scriptedModel', options, SCRIPTED_OPTION_KEYS)
  const requests: ModelRequest[] = []
  const { name = 'scripted', chunkDelayMs = 0, onExhausted = 'error' } = options
  return {
    name,
    requests,
    async *stream(request, { signal }) {
      const index = requests.length
      requests.push(request)
      const turn = turns[index] ?? (onExhausted === 'repeat-last' ? turns[turns.length - 1] : undefined)
      if (!turn) throw new Error(`scriptedModel: no turn ${index + 1} in a script of ${turns.length}; add a turn or pass onExhausted: 'repeat-last'.`)
      const steps = typeof turn === 'function' ? turn(request) : turn
      checkForcedChoice(request, steps, index)
      for (const step of steps) {
        if (signal.aborted) throw abortError(signal)
        if (chunkDelayMs > 0) await sleep(chunkDelayMs, signal)
        if (step.type === 'delay') await sleep(step.ms, signal)
        else if (step.type === 'fail') throw step.error
        else yield step
      }
    },
  }
}

/** A turn answering a request that forces a tool must call that tool and nothing else, as a provider would. */
const checkForcedChoice = (request: ModelRequest, steps: ScriptStep[], index: number): void => {
  const forced = request.tool_choice
  if (typeof forced === 'string' || steps.some((step) => step.type === 'fail')) return
  const names = steps.flatMap((step) => (step.type === 'tool_call' ? [step.name] : []))
  if (!names.includes(forced.name) || names.some((name) => name !== forced.name))
    throw new Error(`scriptedModel: turn ${index + 1} must call "${forced.name}" (the request forces it with tool_choice), but it calls [${[...new Set(names)].join(', ')}].`)
}

/** Script helpers: a text answer split into deltas, and a tool call with its JSON split in fragments. */
export const say = (text: string, pieces = 1): ModelChunk[] => split(text, pieces).map((delta) => ({ type: 'text', delta }))
export const think = (text: string, pieces = 1): ModelChunk[] => split(text, pieces).map((delta) => ({ type: 'thinking', delta }))
export const callTool = (id: string, name: string, input: unknown, pieces = 1): ModelChunk[] =>
  split(JSON.stringify(input), pieces).map((delta) => ({ type: 'tool_call', id, name, delta }))
export const usage = (input_tokens: number, output_tokens: number): ModelChunk => ({ type: 'usage', input_tokens, output_tokens })

const split = (text: string, pieces: number): string[] => {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, pieces)))
  const out: string[] = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out.length ? out : ['']
}
