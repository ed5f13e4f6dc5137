// The real model adapters: OpenAI Chat Completions (and compatible servers) and Anthropic Messages,
// with their pure request formatters, exported for callers and specs.
export { openAIChatModel, type OpenAIChatModelOptions } from './openai.js'
export { anthropicModel, type AnthropicModelOptions } from './anthropic.js'
export {
  formatOpenAIMessages, formatOpenAITools, openAIRequestBody,
  type OpenAIMessage, type OpenAIToolCall, type OpenAIContentPart, type OpenAITool, type OpenAIBodyOptions,
} from './format-openai.js'
export {
  formatAnthropicMessages, formatAnthropicTools, anthropicRequestBody,
  type AnthropicMessage, type AnthropicBlock, type AnthropicTool, type AnthropicThinking, type AnthropicBodyOptions,
} from './format-anthropic.js'
export { repairToolInput, type ToolInput } from './repair-json.js'
