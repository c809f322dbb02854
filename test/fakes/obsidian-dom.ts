/**
 * Obsidian's DOM helpers (createEl, createDiv, createSpan, empty, setText, addClass, ...), which
 * the app adds to every element's prototype, installed on a jsdom or browser document the same
 * way. Signatures follow obsidian.d.ts (DomElementInfo).
 */
export interface DomElementInfo {
  cls?: string | string[];
  text?: string;
  attr?: Record<string, string | number | boolean | null>;
  title?: string;
  type?: string;
  value?: string;
  placeholder?: string;
  href?: string;
}

export function installObsidianDom(win: Window & typeof globalThis): void {
  const proto = win.HTMLElement.prototype as unknown as Record<string, unknown>;
  if (proto.createEl) return;
  function apply(el: HTMLElement, o?: DomElementInfo | string): void {
    if (o === undefined) return;
    if (typeof o === 'string') {
      el.className = o;
      return;
    }
    if (o.cls) el.className = Array.isArray(o.cls) ? o.cls.join(' ') : o.cls;
    if (o.text !== undefined) el.textContent = o.text;
    if (o.title !== undefined) el.title = o.title;
    if (o.type !== undefined) (el as HTMLInputElement).type = o.type;
    if (o.value !== undefined) (el as HTMLInputElement).value = o.value;
    if (o.placeholder !== undefined) (el as HTMLInputElement).placeholder = o.placeholder;
    if (o.href !== undefined) (el as HTMLAnchorElement).href = o.href;
    for (const [k, v] of Object.entries(o.attr ?? {})) if (v !== null && v !== false) el.setAttribute(k, String(v));
  }
  proto.createEl = function (this: HTMLElement, tag: string, o?: DomElementInfo | string, cb?: (el: HTMLElement) => void) {
    const el = this.ownerDocument.createElement(tag);
    apply(el, o);
    this.appendChild(el);
    cb?.(el);
    return el;
  };
  proto.createDiv = function (this: HTMLElement, o?: DomElementInfo | string, cb?: (el: HTMLElement) => void) {
    return (this as unknown as { createEl: (t: string, o?: unknown, cb?: unknown) => HTMLElement }).createEl('div', o, cb);
  };
  proto.createSpan = function (this: HTMLElement, o?: DomElementInfo | string, cb?: (el: HTMLElement) => void) {
    return (this as unknown as { createEl: (t: string, o?: unknown, cb?: unknown) => HTMLElement }).createEl('span', o, cb);
  };
  proto.empty = function (this: HTMLElement) {
    while (this.firstChild) this.removeChild(this.firstChild);
  };
  proto.setText = function (this: HTMLElement, text: string) {
    this.textContent = text;
  };
  proto.appendText = function (this: HTMLElement, text: string) {
    this.appendChild(this.ownerDocument.createTextNode(text));
  };
  proto.addClass = function (this: HTMLElement, ...cls: string[]) {
    this.classList.add(...cls);
  };
  proto.removeClass = function (this: HTMLElement, ...cls: string[]) {
    this.classList.remove(...cls);
  };
  proto.toggleClass = function (this: HTMLElement, cls: string, value: boolean) {
    this.classList.toggle(cls, value);
  };
  proto.hasClass = function (this: HTMLElement, cls: string) {
    return this.classList.contains(cls);
  };
  proto.setAttr = function (this: HTMLElement, name: string, value: string | number | boolean | null) {
    if (value === null) this.removeAttribute(name);
    else this.setAttribute(name, String(value));
  };
  proto.detach = function (this: HTMLElement) {
    this.remove();
  };
  const g = win as unknown as Record<string, unknown>;
  g.activeDocument = win.document;
  g.activeWindow = win;
}
