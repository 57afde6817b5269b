// How a source is labelled wherever several are listed (the filters, `kvscope analyze`): its
// name, with its id beside it where two sources share the name. Pure.

/** Per id, in order: its name (the id when it has none), `name (id)` where a name is shared. */
export function distinctLabels(ids: readonly string[], nameOf: (id: string) => string): string[] {
  const names = ids.map((id) => nameOf(id) || id);
  return ids.map((id, i) => {
    const name = names[i] as string;
    const twice = names.indexOf(name) !== names.lastIndexOf(name);
    return twice && name !== id ? `${name} (${id})` : name;
  });
}

/** distinctLabels as a map: id → its label. */
export function labelsById(
  ids: readonly string[],
  nameOf: (id: string) => string,
): Map<string, string> {
  const labels = distinctLabels(ids, nameOf);
  return new Map(ids.map((id, i) => [id, labels[i] ?? id]));
}
