import DOMPurify from 'dompurify';
import { marked } from 'marked';

/**
 * Agent and assistant text as markdown, sanitised: marked turns it into HTML, DOMPurify keeps only
 * inert markup (no script, no event handler, no `javascript:` link, no form, no style), and every
 * link opens outside the page without handing it the opener. The text is hostile (a model writes
 * it, and a prompt can ask it to write anything): nothing it contains may run in the page.
 */
export function markdownHtml(text: string): string {
  const html = marked.parse(text, { async: false, gfm: true, breaks: false });
  return DOMPurify.sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed', 'img'],
    FORBID_ATTR: ['style'],
  });
}

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

/** Markdown text as a block of sanitised HTML. Images are left out: a page must not fetch what a model names. */
export function Markdown(props: { text: string; class?: string }) {
  return <div class={`markdown ${props.class ?? ''}`.trim()} dangerouslySetInnerHTML={{ __html: markdownHtml(props.text) }} />;
}
