// The page's entry: mounts the app against the server that served it, with this tab's token.
import './zod.js'
import { render } from 'preact'
import { Api } from './api.js'
import { App } from './app.js'
import { html } from './html.js'
import { takeToken } from './token.js'

const root = document.getElementById('app')!
root.textContent = '' // the "Loading agentlog…" text goes once the app runs
render(html`<${App} api=${new Api(location.origin, takeToken())} />`, root)
