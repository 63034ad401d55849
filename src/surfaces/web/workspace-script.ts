import { staticScript } from '../http/static-script.ts';

/**
 * The workspace's one script, served from our own origin (the pages' Content-Security-Policy allows scripts from
 * 'self' only, never inline). Pages work without it; it adds what needs script: copy buttons, and search as you
 * type, which fetches the results section of the same search page and swaps it in. It reads no cookie (the session
 * cookie is HttpOnly) and sends nothing but same-origin GETs of pages the person could open.
 */
export const WORKSPACE_SCRIPT = `'use strict';
for (const button of document.querySelectorAll('button[data-copy]')) {
  if (!navigator.clipboard) continue;
  button.hidden = false;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(button.dataset.copy);
      button.textContent = 'Copied';
    } catch {
      button.textContent = 'Copy failed';
    }
    setTimeout(() => { button.textContent = 'Copy'; }, 1500);
  });
}
for (const form of document.querySelectorAll('form[data-live-search]')) {
  const input = form.querySelector('input[name=q]');
  if (!input) continue;
  // Looked up each time: each answer replaces the section.
  const results = () => document.getElementById('results');
  let timer;
  let controller;
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const query = input.value.trim();
      controller?.abort();
      if (query === '') { results()?.replaceChildren(); return; }
      controller = new AbortController();
      const url = new URL(form.action, location.href);
      url.searchParams.set('q', query);
      url.searchParams.set('fragment', 'results');
      try {
        const response = await fetch(url, { signal: controller.signal, headers: { Accept: 'text/html' } });
        if (!response.ok) return;
        const parsed = new DOMParser().parseFromString(await response.text(), 'text/html');
        const section = parsed.getElementById('results');
        if (section) results()?.replaceWith(document.adoptNode(section));
      } catch {}
    }, 200);
  });
}
`;

/** The workspace script at its address (its content hash makes it safe to cache for long). */
export const WORKSPACE_SCRIPT_ASSET = staticScript('workspace', WORKSPACE_SCRIPT);
