export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  const root = parentElement.querySelector('.tr-root') || parentElement;
  root.replaceChildren();

  const head = document.createElement('div');
  head.className = 'tr-head';
  const left = document.createElement('span');
  left.textContent = data.chapter || '';
  const right = document.createElement('span');
  right.textContent = data.label || '';
  head.append(left, right);

  const article = document.createElement('article');
  article.className = 'tr-page';
  article.setAttribute('data-testid', 'tutor-reader-page');
  const tags = { chapter: 'h2', heading: 'h3', qhead: 'h4' };
  for (const b of data.blocks || []) {
    const el = document.createElement(tags[b.kind] || 'p');
    if (b.kind === 'qitem') el.className = 'tr-q';
    let pos = 0;
    for (const [s, e] of b.marks || []) {
      if (s > pos) el.append(document.createTextNode(b.text.slice(pos, s)));
      const m = document.createElement('mark');
      m.textContent = b.text.slice(s, e);
      el.append(m);
      pos = e;
    }
    el.append(document.createTextNode(b.text.slice(pos)));
    article.append(el);
  }
  const hint = document.createElement('div');
  hint.className = 'tr-hint';
  hint.textContent = data.hint || '';
  root.append(head, article, hint);

  let last = '';
  let timer = null;
  const report = () => {
    const sel = window.getSelection();
    if (!sel || sel.rangeCount === 0 || sel.isCollapsed) return;
    const range = sel.getRangeAt(0);
    if (!article.contains(range.commonAncestorContainer)) return;
    const text = sel.toString().replace(/\s+/g, ' ').trim();
    if (text.length < 2 || text === last) return;
    last = text;
    setTriggerValue('selected', { text: text, page: data.page });
  };
  const onUp = () => { clearTimeout(timer); timer = setTimeout(report, 40); };
  document.addEventListener('mouseup', onUp);
  article.addEventListener('keyup', onUp);
  return () => {
    clearTimeout(timer);
    document.removeEventListener('mouseup', onUp);
    article.removeEventListener('keyup', onUp);
  };
}
