/**
 * The operator dashboard as the template declares it (infra/aws/operator-dashboard.ts): its
 * DashboardBody, a Fn::Join of JSON text and references, read back into the widgets CloudWatch
 * gets, with each reference written `<LogicalId>` or `<LogicalId.Attribute>` (AWS::Region as
 * us-east-1); and that definition drawn as HTML for docs/operator-dashboard.png, since no account is
 * at hand to show the real one (test/infra/dashboard-picture.browser.test.ts).
 */

/* eslint-disable @typescript-eslint/no-explicit-any -- CloudFormation and dashboard JSON */

export interface DashboardWidget {
  type: 'metric' | 'text';
  x: number;
  y: number;
  width: number;
  height: number;
  properties: any;
}

/** A reference of the template, as the resolved body writes it. */
function referenceText(value: any): string {
  if (typeof value === 'string') return value;
  if (value?.Ref === 'AWS::Region') return 'us-east-1';
  if (value?.Ref !== undefined) return `<${value.Ref}>`;
  if (value?.['Fn::GetAtt'] !== undefined) return `<${value['Fn::GetAtt'].join('.')}>`;
  throw new Error(`dashboard body: no reading for ${JSON.stringify(value)}`);
}

/** The body's text: a plain string, or a Fn::Join of strings and references. */
export function dashboardBodyText(body: any): string {
  if (typeof body === 'string') return body;
  const [separator, parts] = body['Fn::Join'] as [string, any[]];
  return parts.map(referenceText).join(separator);
}

export function dashboardWidgets(body: any): DashboardWidget[] {
  return JSON.parse(dashboardBodyText(body)).widgets;
}

/**
 * A graph's series as the legend names them: its label, and what it reads (a metric as
 * namespace and name, an expression as written).
 */
export function seriesOf(widget: DashboardWidget): { label: string; reads: string; axis: 'left' | 'right' }[] {
  const metrics: any[][] = widget.properties.metrics ?? [];
  // The metrics an expression reads by id (hidden rows: namespace, name, { id, visible: false }).
  const byId = new Map<string, string>();
  for (const row of metrics) {
    const options = row[row.length - 1];
    if (typeof options === 'object' && options.id !== undefined) byId.set(options.id, `${row[0]} ${row[1]}`);
  }
  const readable = (expression: string) => expression.replace(/\b[a-z][A-Za-z0-9_]*\b/g, (id) => byId.get(id) ?? id);
  return metrics
    .map((row) => {
      const options = typeof row[row.length - 1] === 'object' ? row[row.length - 1] : {};
      const path = row.filter((item) => typeof item === 'string');
      const reads = options.expression !== undefined ? readable(options.expression) : `${path[0]} ${path[1]}`;
      return { label: options.label ?? '', reads, axis: options.yAxis === 'right' ? ('right' as const) : ('left' as const), visible: options.visible !== false };
    })
    .filter((series) => series.visible)
    .map(({ label, reads, axis }) => ({ label, reads, axis }));
}

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf', '#aec7e8'];
/** CloudWatch's grid: 24 columns; a unit of height is about 30 px in the console. */
const COLUMN = 50;
const ROW = 30;

/** The dashboard drawn from its definition: each widget where the grid puts it, its title, and its series with what each reads. */
export function dashboardHtml(title: string, widgets: DashboardWidget[]): string {
  const boxes = widgets.map((widget) => {
    const style = `left:${widget.x * COLUMN}px;top:${widget.y * ROW}px;width:${widget.width * COLUMN - 8}px;height:${widget.height * ROW - 8}px`;
    if (widget.type === 'text') {
      const [heading, ...rest] = String(widget.properties.markdown).split('\n');
      return `<section class="widget text" style="${style}"><h1>${escape(heading!.replace(/^#+\s*/, ''))}</h1><p>${escape(rest.join(' '))}</p></section>`;
    }
    const series = seriesOf(widget)
      .map(
        (one, index) =>
          `<li><span class="swatch" style="background:${COLORS[index % COLORS.length]}"></span><b>${escape(one.label)}</b>${one.axis === 'right' ? ' <i>(right axis)</i>' : ''}` +
          `<code>${escape(shortened(one.reads))}</code></li>`,
      )
      .join('');
    return `<section class="widget" style="${style}" data-title="${escape(widget.properties.title)}"><h2>${escape(widget.properties.title)}</h2><div class="plot">no data: drawn from the definition</div><ul>${series}</ul></section>`;
  });
  const height = Math.max(...widgets.map((widget) => (widget.y + widget.height) * ROW));
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escape(title)}</title><style>
body{margin:0;font:11px/1.3 "DejaVu Sans",Arial,sans-serif;background:#f2f3f3;color:#16191f}
main{position:relative;width:${24 * COLUMN}px;height:${height}px;margin:8px}
.widget{position:absolute;box-sizing:border-box;background:#fff;border:1px solid #d5dbdb;border-radius:2px;padding:6px 8px;overflow:hidden}
.widget h2{margin:0 0 4px;font-size:12px}
.text h1{margin:0 0 4px;font-size:15px}.text p{margin:0}
.plot{height:46px;color:#aab7b8;font-size:10px;text-align:center;line-height:46px;border-left:1px solid #aab7b8;border-bottom:1px solid #aab7b8;margin:0 0 5px;background:repeating-linear-gradient(#fff 0 14px,#f2f3f3 14px 15px)}
ul{list-style:none;margin:0;padding:0}li{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.swatch{display:inline-block;width:9px;height:9px;margin-right:4px;vertical-align:-1px}
code{margin-left:5px;color:#545b64;font-size:10px}
</style></head><body><main>${boxes.join('')}</main></body></html>`;
}

/** An expression or metric as short as the legend allows: the SEARCH's metric name, not its whole text. */
function shortened(reads: string): string {
  const search = /SEARCH\('\{([^}]*)\} MetricName="([^"]+)" TopicName=([^']+)'/.exec(reads);
  if (search) return `SUM over topics ${search[3]}-*: ${search[2]}`;
  const filled = /^FILL\(\S+ (\w+), 0\)$/.exec(reads);
  if (filled) return `${filled[1]} (sweep log metric filter)`;
  return reads;
}
