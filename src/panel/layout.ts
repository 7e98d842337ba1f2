import { Html, html } from './html.ts';
import { assetPath } from './assets.ts';

export type Section = 'inicio' | 'calendario' | 'ocupacion' | 'colectivas' | 'plan' | 'pasivo' | 'trabajador' | 'auditoria' | 'operacion';

const SECTIONS: { id: Section; label: string; href: string }[] = [
  { id: 'inicio', label: 'Inicio', href: '/panel' },
  { id: 'calendario', label: 'Calendario', href: '/panel/calendario' },
  { id: 'ocupacion', label: 'Ocupación', href: '/panel/ocupacion' },
  { id: 'colectivas', label: 'Colectivas', href: '/panel/colectivas' },
  { id: 'plan', label: 'Plan anual', href: '/panel/plan' },
  { id: 'pasivo', label: 'Pasivo', href: '/panel/pasivo' },
  { id: 'trabajador', label: 'Trabajador', href: '/panel/trabajador' },
  { id: 'auditoria', label: 'Auditoría', href: '/panel/auditoria' },
  { id: 'operacion', label: 'Operación', href: '/panel/operacion' },
];

export interface Flash {
  kind: 'ok' | 'error';
  text: string;
}

export interface PageOptions {
  title: string;
  body: Html;
  /** The signed-in person, for the header and the sign-out form; none on the sign-in pages. */
  user?: { email: string; name: string; role?: string };
  section?: Section;
  csrf?: string;
  flash?: Flash | null;
}

/** A message the page announces: errors to assistive technology at once, news politely. */
export function flashBox(flash: Flash | null | undefined): Html {
  if (!flash) return html``;
  return flash.kind === 'error'
    ? html`<div class="flash flash-error" role="alert">${flash.text}</div>`
    : html`<div class="flash flash-ok" role="status">${flash.text}</div>`;
}

/**
 * Every table in a box of its own that scrolls sideways when the table is wider than the screen,
 * so that the page itself never does; the box is reachable with the keyboard (a scrolling region
 * must be) and named after the table's caption.
 */
function scrollingTables(body: string): string {
  return body
    .replace(/<table\b[^>]*>(\s*<caption>([\s\S]*?)<\/caption>)?/g, (table: string, _c: string, caption: string | undefined) => {
      const name = caption
        ? caption
            .replace(/<[^>]*>/g, '')
            .replace(/\s+/g, ' ')
            .trim()
        : 'Tabla';
      return `<div class="scroll" role="region" tabindex="0" aria-label="${name.replace(/"/g, '&quot;')}">${table}`;
    })
    .replace(/<\/table>/g, '</table></div>');
}

/** The whole document: header with the sections and the sign-out button, the page, nothing from elsewhere. */
export function page(o: PageOptions): Html {
  const nav = o.user
    ? html`<nav aria-label="Secciones del panel"><ul>
        ${SECTIONS.map((s) => html`<li><a href="${s.href}"${s.id === o.section ? html` aria-current="page"` : ''}>${s.label}</a></li>`)}
      </ul></nav>
      <form method="post" action="/panel/salir" class="signout">
        <input type="hidden" name="_csrf" value="${o.csrf}">
        <span class="who">${o.user.name} <span class="email">(${o.user.email}${o.user.role ? `, ${o.user.role}` : ''})</span></span>
        <button type="submit">Cerrar sesión</button>
      </form>`
    : html``;
  return html`<!doctype html>
<html lang="es">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${o.title} · Vacaciones</title>
<link rel="stylesheet" href="${assetPath('panel.css')}">
<link rel="stylesheet" href="${assetPath('calendar-grid.css')}">
<script src="${assetPath('panel.js')}" defer></script>
</head>
<body>
<a class="skip" href="#contenido">Saltar al contenido</a>
<header class="top">
  <p class="brand"><a href="/panel">Vacaciones</a></p>
  ${nav}
</header>
<main id="contenido" tabindex="-1">
<h1>${o.title}</h1>
${flashBox(o.flash)}
${new Html(scrollingTables(o.body.value))}
</main>
</body>
</html>
`;
}
