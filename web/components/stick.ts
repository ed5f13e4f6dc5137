// Keeps a scrolled panel at its end while new content arrives, unless the person scrolled up to
// read: checked before each redraw, applied after it, and again whenever a block inside grows
// without a redraw (an image that loads, a card that fills in). Only a move up leaves the end:
// content growing under a scroll the panel made itself does not.
import { useLayoutEffect, useRef } from 'preact/hooks'

const SLACK = 40

/** `resizes`: also follow blocks that grow between redraws (observed one by one; off for long uniform lists). */
export const useStickToEnd = <T extends HTMLElement>(change: unknown, { resizes = false } = {}) => {
  const ref = useRef<T>(null)
  const atEnd = useRef(true)
  const follow = useRef(() => {})
  useLayoutEffect(() => {
    const el = ref.current
    if (!el) return
    let lastTop = el.scrollTop
    follow.current = () => {
      if (!atEnd.current) return
      el.scrollTop = el.scrollHeight
      lastTop = el.scrollTop
    }
    const onScroll = () => {
      if (el.scrollHeight - el.scrollTop - el.clientHeight <= SLACK) atEnd.current = true
      else if (el.scrollTop < lastTop) atEnd.current = false
      lastTop = el.scrollTop
    }
    const onLoad = () => follow.current()
    el.addEventListener('scroll', onScroll, { passive: true })
    el.addEventListener('load', onLoad, true) // an image inside: load does not bubble, so listen while it goes down
    const sizes = resizes && typeof ResizeObserver === 'function' ? new ResizeObserver(onLoad) : null
    const added = sizes ? new MutationObserver((records) => {
      for (const record of records) record.addedNodes.forEach((node) => node instanceof Element && sizes.observe(node))
    }) : null
    if (sizes && added) {
      for (const child of Array.from(el.children)) sizes.observe(child)
      added.observe(el, { childList: true })
    }
    return () => {
      el.removeEventListener('scroll', onScroll)
      el.removeEventListener('load', onLoad, true)
      sizes?.disconnect()
      added?.disconnect()
    }
  }, [])
  useLayoutEffect(() => follow.current(), [change])
  return ref
}
