/**
 * The layers of src/, lowest first. A layer imports only from layers below it (and itself);
 * files at the root of src/ compose the layers (migrations list, server) and may import any.
 * docs/architecture.md explains each layer.
 */
const LAYERS = [
  ['domain', '^src/domain/'],
  ['events', '^src/events/'],
  ['infrastructure', '^src/(store|db|config)/|^src/(logger|memory)\\.ts$'],
  ['reference', '^src/(reference|security)/'],
  ['caching', '^src/caching/'],
  ['commands', '^src/(commands|integrity)/'],
  ['projections', '^src/(projections|integration)/'],
  ['app', '^src/app/'],
  ['delivery', '^src/(http|panel)/'],
  ['cli', '^src/cli/'],
];

const above = (i) =>
  LAYERS.slice(i + 1)
    .map(([, path]) => `(${path})`)
    .join('|');

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle ties two modules into one: move the shared piece down a layer or pass it in.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycle',
      scope: 'folder',
      severity: 'error',
      comment: 'Two folders that import each other are one: move the shared piece to a folder both may import.',
      from: {},
      to: { circular: true },
    },
    ...LAYERS.slice(0, -1).map(([name, path], i) => ({
      name: `layer-${name}`,
      severity: 'error',
      comment: `${name} may import only from the layers below it (see docs/architecture.md).`,
      from: { path },
      to: { path: above(i) },
    })),
    {
      name: 'sibling-delivery',
      severity: 'error',
      comment: 'The API and the panel share only what sits in app/ or below.',
      from: { path: '^src/http/' },
      to: { path: '^src/panel/' },
    },
    {
      name: 'sibling-delivery-back',
      severity: 'error',
      comment: 'The API and the panel share only what sits in app/ or below.',
      from: { path: '^src/panel/' },
      to: { path: '^src/http/' },
    },
    {
      name: 'faces-through-app',
      severity: 'error',
      comment: 'The API and the panel reach the command side and the event store only through src/app (src/app/ports.ts).',
      from: { path: '^src/(http|panel)/' },
      to: { path: '^src/(commands|store)/' },
    },
    {
      name: 'read-side-not-on-commands',
      severity: 'error',
      comment: 'A read model or report folds events with src/events/worker-state.ts, never with the command side.',
      from: { path: '^src/projections/' },
      to: { path: '^src/commands/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
