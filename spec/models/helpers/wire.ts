// Provider wire formats for the adapter specs: OpenAI `chat.completion.chunk` events as `data:`
// lines ending in `data: [DONE]`, Anthropic `event:` / `data:` pairs, byte splitting at awkward
// places, and a fetch that records the body chunks the client really received.

const OPENAI_BASE = {
  id: 'chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG',
  object: 'chat.completion.chunk',
  created: 1741570283,
  model: 'gpt-4o-2024-08-06',
  service_tier: 'default',
  system_fingerprint: 'fp_eb9dce56a8',
}

/** One chunk as OpenAI sends it (compact JSON, `usage: null` when include_usage is on). */
export const oaChunk = (delta: Record<string, unknown>, finish_reason: string | null = null): string =>
  JSON.stringify({ ...OPENAI_BASE, choices: [{ index: 0, delta, logprobs: null, finish_reason }], usage: null })

/** The usage chunk sent before `[DONE]`: empty choices. */
export const oaUsage = (prompt: number, completion: number, cached: number): string =>
  JSON.stringify({
    ...OPENAI_BASE,
    choices: [],
    usage: {
      prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    },
  })

export const oaToolStart = (index: number, id: string, name: string) =>
  ({ index, id, type: 'function', function: { name, arguments: '' } })
export const oaToolArgs = (index: number, args: string) => ({ index, function: { arguments: args } })

/** `data: ...` events and the closing `data: [DONE]`. */
export const oaStream = (chunks: string[], done = true): string =>
  chunks.map((json) => `data: ${json}\n\n`).join('') + (done ? 'data: [DONE]\n\n' : '')

/** One Anthropic event: `event:` line, `data:` line, blank line. */
export const anEvent = (data: { type: string } & Record<string, unknown>): string =>
  `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`

export const anMessageStart = (usage: Record<string, number>) => anEvent({
  type: 'message_start',
  message: {
    id: 'msg_01XFDUDYJgAACzvnptvVoYEL', type: 'message', role: 'assistant', content: [],
    model: 'claude-sonnet-4-5-20250929', stop_reason: null, stop_sequence: null, usage,
  },
})
export const anBlockStart = (index: number, content_block: Record<string, unknown>) =>
  anEvent({ type: 'content_block_start', index, content_block })
export const anDelta = (index: number, delta: Record<string, unknown>) => anEvent({ type: 'content_block_delta', index, delta })
export const anBlockStop = (index: number) => anEvent({ type: 'content_block_stop', index })
export const anPing = () => anEvent({ type: 'ping' })
export const anMessageDelta = (stop_reason: string, usage: Record<string, number>) =>
  anEvent({ type: 'message_delta', delta: { stop_reason, stop_sequence: null }, usage })
export const anMessageStop = () => anEvent({ type: 'message_stop' })

/** The UTF-8 bytes of `text` cut every `size` bytes: mid-line, mid-JSON, mid-character. */
export const pieces = (text: string, size: number): Uint8Array[] => {
  const bytes = new TextEncoder().encode(text)
  const out: Uint8Array[] = []
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size))
  return out
}

/** True when a chunk boundary falls inside a multibyte UTF-8 character. */
export const cutsACharacter = (chunks: Uint8Array[]): boolean =>
  chunks.some((chunk) => {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(chunk)
      return false
    } catch {
      return true
    }
  })

/** A fetch that passes through, keeping every body chunk as the client received it. */
export const recordingFetch = () => {
  const received: Uint8Array[] = []
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const response = await globalThis.fetch(input, init)
    if (!response.body) return response
    const tap = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        received.push(chunk)
        controller.enqueue(chunk)
      },
    })
    return new Response(response.body.pipeThrough(tap), { status: response.status, headers: response.headers })
  }
  return { fetch, received }
}

/** Collects every chunk of a stream, or the error it ended with. */
export const collect = async <T>(iterable: AsyncIterable<T>): Promise<{ chunks: T[]; error?: any }> => {
  const chunks: T[] = []
  try {
    for await (const chunk of iterable) chunks.push(chunk)
    return { chunks }
  } catch (error) {
    return { chunks, error }
  }
}

/** Resolves with the promise's value, or rejects after `ms`. */
export const within = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms))])
