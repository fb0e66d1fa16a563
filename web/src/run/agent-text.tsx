import { useEffect, useState } from 'preact/hooks';

/**
 * An agent's text as sanitised markdown (../markdown.tsx), with the markdown libraries loaded
 * when the first such text is shown: they are a chunk of their own, out of the page's initial
 * script. Until they are there, the text is shown as plain text (inert).
 */

type MarkdownModule = typeof import('../markdown.js');
let loading: Promise<MarkdownModule> | undefined;
let loaded: MarkdownModule | undefined;

function loadMarkdown(): Promise<MarkdownModule> {
  loading ??= import('../markdown.js').then((module) => (loaded = module));
  return loading;
}

export function AgentText(props: { text: string; class?: string }) {
  const [module, setModule] = useState<MarkdownModule | undefined>(loaded);
  useEffect(() => {
    if (module) return;
    let live = true;
    void loadMarkdown().then((m) => live && setModule(m));
    return () => {
      live = false;
    };
  }, [module]);
  if (!module) return <div class={`markdown plain ${props.class ?? ''}`.trim()}>{props.text}</div>;
  return <module.Markdown text={props.text} {...(props.class ? { class: props.class } : {})} />;
}
