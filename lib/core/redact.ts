// Credentials never reach the log: error messages (a provider's error body can echo the API key,
// a URL can carry a password) are redacted before they are recorded. Browser-safe.

const PATTERNS: [RegExp, string][] = [
  // user:password@ in a URL
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*):[^\s/@]*@/gi, '$1:***@'],
  // Authorization header values and bearer tokens
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g, '$1 ***'],
  // API keys of the usual shapes: sk-..., sk-ant-..., and key=... / api_key: ... pairs
  [/\bsk-[A-Za-z0-9_-]{8,}/g, 'sk-***'],
  [/\b((?:x-)?api[_-]?key|access[_-]?token|token|secret|password)(["']?\s*[:=]\s*["']?)[^\s"'&,}]{6,}/gi, '$1$2***'],
]

/** `text` with API keys, bearer tokens and URL passwords replaced by `***`; `secrets` (known keys) too. */
export const redactSecrets = (text: string, secrets: readonly string[] = []): string => {
  let out = text
  for (const secret of secrets) if (secret.length >= 6) out = out.split(secret).join('***')
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement)
  return out
}
