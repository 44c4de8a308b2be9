import { useMemo } from 'react';
import { parseMarkdown, type Inline } from './markdown';

function InlineText({ parts }: { parts: readonly Inline[] }) {
  return (
    <>
      {parts.map((p, i) =>
        p.kind === 'strong' ? (
          <strong key={i}>{p.text}</strong>
        ) : p.kind === 'em' ? (
          <em key={i}>{p.text}</em>
        ) : p.kind === 'link' ? (
          <a key={i} href={p.href} target="_blank" rel="noreferrer noopener">
            {p.text}
          </a>
        ) : (
          p.text
        ),
      )}
    </>
  );
}

/** A study text (consent, instructions, completion) drawn from its Markdown, never as raw HTML. */
export function Markdown({ text }: { text: string }) {
  const blocks = useMemo(() => parseMarkdown(text), [text]);
  return (
    <div className="study-text">
      {blocks.map((b, i) => {
        if (b.kind === 'heading') {
          const H = `h${b.level}` as const;
          return (
            <H key={i}>
              <InlineText parts={b.content} />
            </H>
          );
        }
        if (b.kind === 'list') {
          const L = b.ordered ? 'ol' : 'ul';
          return (
            <L key={i}>
              {b.items.map((item, j) => (
                <li key={j}>
                  <InlineText parts={item} />
                </li>
              ))}
            </L>
          );
        }
        return (
          <p key={i}>
            <InlineText parts={b.content} />
          </p>
        );
      })}
    </div>
  );
}
