// Steps the browser specs share, written the way a person uses the page: by labels and roles.
import type { Locator, Page } from 'playwright-core'
import type { AgentState } from '../../../reducers/state.js'

export const TIMEOUT = 10_000

/** Opens the page, makes a new session with the button, and returns its id (from the address). */
export const newSession = async (page: Page, url: string): Promise<string> => {
  await page.goto(url)
  await page.getByRole('button', { name: 'New session' }).click()
  await page.waitForURL(/#\/sessions\//, { timeout: TIMEOUT })
  const id = decodeURIComponent(new URL(page.url()).hash.replace('#/sessions/', ''))
  await page.getByLabel('Message').waitFor({ timeout: TIMEOUT })
  return id
}

/** Sends `text` with Enter and waits until the page shows it as the latest message of the session. */
export const send = async (page: Page, text: string): Promise<void> => {
  const box = page.getByLabel('Message')
  const before = await page.locator('article.msg-user').count()
  await box.fill(text)
  await box.press('Enter')
  await page.waitForFunction((n) => document.querySelectorAll('article.msg-user').length > n, before, { timeout: TIMEOUT })
}

export const replies = (page: Page): Locator => page.locator('article.msg-assistant')
export const lastReply = (page: Page): Locator => replies(page).last()

/** Sends "approve" (the playbook's asking call, send_email) and returns its card once the approval form shows. */
export const askingCard = async (page: Page): Promise<Locator> => {
  await send(page, 'approve')
  const card = page.getByRole('region', { name: 'Tool call send_email' })
  await card.getByRole('group', { name: 'Approve send_email?' }).waitFor({ timeout: TIMEOUT })
  return card
}

/** Waits until the page says the agent is idle again, with the reply to the last message shown. */
export const waitReady = (page: Page): Promise<unknown> =>
  page.waitForFunction(() => {
    const articles = document.querySelectorAll('article.msg')
    return document.querySelector('.status-line')?.textContent === 'Ready.' &&
      (articles.length === 0 || articles[articles.length - 1].classList.contains('msg-assistant'))
  }, undefined, { timeout: TIMEOUT })

/** Waits until the last reply's text is at least `chars` long (it is streaming). */
export const waitText = (page: Page, chars: number): Promise<unknown> =>
  page.waitForFunction((n) => {
    const replies = document.querySelectorAll('article.msg-assistant')
    const text = replies[replies.length - 1]?.querySelector('.text:not(details .text)')?.textContent ?? ''
    return text.length >= n
  }, chars, { timeout: TIMEOUT })

export const replyText = (page: Page): Promise<string> =>
  lastReply(page).locator(':scope > .text').allTextContents().then((t) => t.join(''))

export const serverState = async (url: string, id: string): Promise<AgentState> => {
  const res = await fetch(`${url}/sessions/${encodeURIComponent(id)}`)
  if (!res.ok) throw new Error(`GET /sessions/${id}: ${res.status} ${await res.text()}`)
  return (await res.json()) as AgentState
}

/** The text of a message as the page shows it (text blocks joined). */
export const msgText = (msg: AgentState['context'][number]): string =>
  msg.content.map((b) => (b.type === 'text' ? b.text : '')).join('')

// Every element with its own text: WCAG contrast of its colour on the first opaque background
// behind it; returns those under 4.5:1.
export const CONTRAST_CHECK = `(() => {
  const rgb = (c) => c.match(/[\\d.]+/g).map(Number)
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4 }
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b)
  }
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor)
      if (c.length < 4 || c[3] > 0.99) return c.slice(0, 3)
    }
    return [255, 255, 255]
  }
  const low = []
  for (const el of document.querySelectorAll('body *')) {
    if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue
    const style = getComputedStyle(el)
    if (style.visibility === 'hidden' || style.display === 'none') continue
    const a = lum(rgb(style.color)), b = lum(background(el))
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)
    if (ratio < 4.5) low.push(el.tagName + '.' + el.className + ' ' + ratio.toFixed(2) + ' ' + el.textContent.trim().slice(0, 20))
  }
  return low
})()`
