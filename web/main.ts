// The page's entry: mounts the app against the server that served it, with this tab's token.
import { render } from 'preact'
import { Api } from './api.js'
import { App } from './app.js'
import { html } from './html.js'
import { takeToken } from './token.js'

render(html`<${App} api=${new Api(location.origin, takeToken())} />`, document.getElementById('app')!)
