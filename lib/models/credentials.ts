// Keeping the API key where it belongs: a baseURL that carries `user:password@` is refused when
// the model is made (the password would end up in error messages and the log), and a redirect is
// never followed to another origin, where `x-api-key` (which fetch does not strip, unlike
// Authorization) and the whole conversation would go. Same-origin 307/308 redirects are followed.
import { AgentError } from '../core/errors.js'
import { ModelError } from '../core/errors.js'

/** `baseURL` as given, once it is known to carry no credentials. */
export const checkBaseURL = (factory: string, baseURL: string): string => {
  let url: URL
  try {
    url = new URL(baseURL)
  } catch {
    throw new AgentError('INVALID_OPTION', `${factory}: baseURL must be an absolute URL such as "https://api.example.com/v1"; received a value that is not one.`)
  }
  if (url.username || url.password)
    throw new AgentError('INVALID_OPTION', `${factory}: baseURL must not carry credentials (user:password@); pass the key as apiKey, or a header through \`headers\`. The URL was not used.`)
  return baseURL
}

const MAX_REDIRECTS = 5

/**
 * `fetch` with redirects handled here: a 307/308 to the same origin is followed (method, body and
 * headers kept); any other redirect fails as an `invalid_request` ModelError naming where it led.
 */
export const fetchWithoutLeaks = async (doFetch: typeof globalThis.fetch, provider: string, url: string, init: RequestInit): Promise<Response> => {
  let current = url
  for (let hop = 0; ; hop++) {
    const response = await doFetch(current, { ...init, redirect: 'manual' })
    if (response.type !== 'opaqueredirect' && (response.status < 300 || response.status >= 400 || response.status === 304)) return response
    const location = response.headers.get('location')
    const target = location ? safeURL(location, current) : null
    const sameOrigin = target !== null && target.origin === new URL(current).origin
    if (sameOrigin && (response.status === 307 || response.status === 308) && hop < MAX_REDIRECTS) {
      await response.body?.cancel().catch(() => {})
      current = target.href
      continue
    }
    await response.body?.cancel().catch(() => {})
    const where = target ? (sameOrigin ? target.pathname : `another origin (${target.origin})`) : 'an address the browser hides'
    throw new ModelError({
      type: 'invalid_request',
      message: `${provider}: the server redirected the request (HTTP ${response.status || 'redirect'}) to ${where}; agentlog does not follow ${sameOrigin ? 'this redirect' : 'redirects to another origin (they would carry the API key and the conversation there)'}. Set baseURL to the final address.`,
    }, response.status || undefined)
  }
}

const safeURL = (location: string, base: string): URL | null => {
  try {
    return new URL(location, base)
  } catch {
    return null
  }
}
