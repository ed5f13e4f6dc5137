// The page's entry: mounts the app against the server that served it.
import { render } from 'preact'
import { Api } from './api.js'
import { App } from './app.js'
import { html } from './html.js'

const token = new URLSearchParams(location.search).get('token') ?? undefined
render(html`<${App} api=${new Api(location.origin, token)} />`, document.getElementById('app')!)
