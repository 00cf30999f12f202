// The page's building blocks: an element by id, and elements made with their properties and children.

export const $ = (id) => document.getElementById(id);

export function element(tag, properties = {}, children = []) {
  const node = Object.assign(document.createElement(tag), properties);
  for (const child of children) node.append(child);
  return node;
}

/** A table cell that names its column (`data-label`), which a narrow screen shows beside its value. */
export function labelledCell(label, properties = {}, children = []) {
  const cell = element('td', properties, children);
  cell.dataset.label = label;
  return cell;
}
