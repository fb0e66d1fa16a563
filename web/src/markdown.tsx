import DOMPurify from 'dompurify';
import { Marked, marked } from 'marked';

/**
 * Agent and assistant text as markdown, sanitised: marked turns it into HTML, DOMPurify keeps only
 * inert markup (no script, no event handler, no `javascript:` link, no form, no style), and every
 * link opens outside the page without handing it the opener. The text is hostile (a model writes
 * it, and a prompt can ask it to write anything): nothing it contains may run in the page.
 */
export function markdownHtml(text: string, opts: MarkdownOptions = {}): string {
  const html = (opts.htmlAsText ? htmlAsText : marked).parse(text, { async: false, gfm: true, breaks: false });
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
export function Markdown(props: { text: string; class?: string } & MarkdownOptions) {
  const html = markdownHtml(props.text, props.htmlAsText ? { htmlAsText: true } : {});
  return <div class={`markdown ${props.class ?? ''}`.trim()} dangerouslySetInnerHTML={{ __html: html }} />;
}

export interface MarkdownOptions {
  /**
   * HTML written in the text is shown as the text it is, not as markup: a chat answer's
   * `<name>` placeholders (the slash commands' help) and any tag a model writes read as written.
   * What is left is sanitised all the same.
   */
  htmlAsText?: boolean;
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const htmlAsText = new Marked({ renderer: { html: (token) => escapeHtml(token.text) } });
