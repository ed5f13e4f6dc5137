// Shown when the server refuses the page's token (HTTP 401): a field for the access token given to
// `agentlog serve --token`. The token is kept for this tab (sessionStorage, never in the address)
// and the page reloads with it.
import { useState } from 'preact/hooks'
import { html } from '../html.js'
import { keepToken } from '../token.js'

export const TokenForm = () => {
  const [token, setToken] = useState('')
  const submit = (e: Event) => {
    e.preventDefault()
    if (!token) return
    keepToken(token)
    location.reload()
  }
  return html`
    <form class="banner warn token" onSubmit=${submit}>
      <label>The server needs an access token (agentlog serve --token).
        <input type="password" name="token" autocomplete="off" aria-label="Access token" value=${token}
          onInput=${(e: Event) => setToken((e.target as HTMLInputElement).value)} />
      </label>
      <button type="submit" class="primary">Use token</button>
    </form>`
}
