// Element references: the Python side never holds remote objects; elements are handed out as
// small integers that live as long as the document.

const refs = new Map();
const ids = new WeakMap();
let nextRef = 1;

export function refOf(el) {
  if (!el) {
    return null;
  }
  let id = ids.get(el);
  if (id === undefined) {
    id = nextRef++;
    ids.set(el, id);
    refs.set(id, el);
  }
  return id;
}

export function element(ref) {
  const el = refs.get(ref);
  if (!el) {
    throw new Error(`unknown element reference ${ref}`);
  }
  return el;
}
