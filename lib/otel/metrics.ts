// The metrics instrument() records, from the same fold that makes the spans: the GenAI
// conventions' client histograms (token usage, operation duration) and agentlog's counters of
// replies by finish reason and of interrupts by source.
import type { Meter } from '@opentelemetry/api'
import { AGENTLOG, GEN_AI } from './attributes.js'
import type { TraceObserver } from './settings.js'

const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864]
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92]

export const agentMetrics = (meter: Meter, providerName?: string): TraceObserver => {
  const tokens = meter.createHistogram('gen_ai.client.token.usage', {
    description: 'Tokens used per model call, by type (input, output)', unit: '{token}', advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
  })
  const duration = meter.createHistogram('gen_ai.client.operation.duration', {
    description: 'Duration of model calls', unit: 's', advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  })
  const replies = meter.createCounter('agentlog.replies', { description: 'Replies ended, by finish reason', unit: '{reply}' })
  const interrupts = meter.createCounter('agentlog.interrupts', { description: 'Replies interrupted, by who stopped them', unit: '{interrupt}' })
  const provider = providerName ? { [GEN_AI.provider]: providerName } : {}
  return {
    chatEnded({ model, usage, durationMs, error }) {
      const attributes = { [GEN_AI.operation]: 'chat', [GEN_AI.requestModel]: model, ...provider }
      tokens.record(usage.input_tokens, { ...attributes, [GEN_AI.tokenType]: 'input' })
      tokens.record(usage.output_tokens, { ...attributes, [GEN_AI.tokenType]: 'output' })
      duration.record(durationMs / 1000, error ? { ...attributes, [GEN_AI.errorType]: error } : attributes)
    },
    replyEnded(reason, agent) {
      replies.add(1, { [AGENTLOG.finishReason]: reason, [GEN_AI.agentName]: agent })
    },
    interrupted(source, agent) {
      interrupts.add(1, { [AGENTLOG.interruptSource]: source, [GEN_AI.agentName]: agent })
    },
  }
}
