// A grouped bar chart as a self-contained SVG string (no dependency), for the eval and bench reports.

export interface BarSeries {
  name: string;
  color: string;
  /** One value per group; NaN leaves a gap (e.g. a peer that could not run). */
  values: number[];
}

export interface BarChartOptions {
  title: string;
  groups: string[];
  series: BarSeries[];
  yLabel: string;
  /** Formats bar labels and ticks. */
  format?: (v: number) => string;
  /** Log10 y axis (for latencies spanning decades). */
  log?: boolean;
  /** Upper end of a linear axis (default: the largest value, rounded up). */
  yMax?: number;
  width?: number;
  height?: number;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** Renders a grouped bar chart: one cluster per group, one bar per series, values printed above bars. */
export function groupedBarChart(o: BarChartOptions): string {
  const width = o.width ?? 760;
  const height = o.height ?? 380;
  const format = o.format ?? ((v: number) => v.toFixed(1));
  const margin = { top: 48, right: 16, bottom: 64, left: 64 };
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const finite = o.series.flatMap((s) => s.values).filter((v) => Number.isFinite(v) && (!o.log || v > 0));
  const maxV = Math.max(...finite, 1e-9);
  const minV = Math.min(...finite, maxV);
  let ticks: number[];
  let y: (v: number) => number;
  if (o.log === true) {
    const lo = Math.floor(Math.log10(minV));
    const hi = Math.ceil(Math.log10(maxV));
    const span = Math.max(1, hi - lo);
    ticks = [];
    for (let e = lo; e <= lo + span; e++) ticks.push(10 ** e);
    y = (v) => margin.top + plotH - ((Math.log10(v) - lo) / span) * plotH;
  } else {
    const top = o.yMax ?? niceCeil(maxV);
    ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => f * top);
    y = (v) => margin.top + plotH - (v / top) * plotH;
  }
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="11">`,
  );
  parts.push(`<rect width="${width}" height="${height}" fill="#ffffff"/>`);
  parts.push(`<text x="${width / 2}" y="20" text-anchor="middle" font-size="14" font-weight="bold">${escapeXml(o.title)}</text>`);
  for (const t of ticks) {
    const ty = y(t).toFixed(1);
    parts.push(`<line x1="${margin.left}" x2="${width - margin.right}" y1="${ty}" y2="${ty}" stroke="#e0e0e0"/>`);
    parts.push(`<text x="${margin.left - 6}" y="${ty}" text-anchor="end" dominant-baseline="middle" fill="#555">${escapeXml(format(t))}</text>`);
  }
  parts.push(`<text transform="translate(16 ${margin.top + plotH / 2}) rotate(-90)" text-anchor="middle" fill="#333">${escapeXml(o.yLabel)}</text>`);
  const groupW = plotW / o.groups.length;
  const barW = Math.min(36, (groupW * 0.8) / o.series.length);
  o.groups.forEach((group, g) => {
    const x0 = margin.left + g * groupW + (groupW - barW * o.series.length) / 2;
    o.series.forEach((s, i) => {
      const v = s.values[g] ?? Number.NaN;
      const x = x0 + i * barW;
      if (!Number.isFinite(v) || (o.log === true && v <= 0)) {
        parts.push(`<text x="${(x + barW / 2).toFixed(1)}" y="${margin.top + plotH - 4}" text-anchor="middle" fill="#999">n/a</text>`);
        return;
      }
      const top = y(v);
      const base = margin.top + plotH;
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${(barW - 2).toFixed(1)}" height="${Math.max(0, base - top).toFixed(1)}" fill="${s.color}"><title>${escapeXml(`${s.name}, ${group}: ${format(v)}`)}</title></rect>`,
      );
      parts.push(
        `<text x="${(x + (barW - 2) / 2).toFixed(1)}" y="${(top - 3).toFixed(1)}" text-anchor="middle" font-size="9" fill="#333">${escapeXml(format(v))}</text>`,
      );
    });
    parts.push(
      `<text x="${(margin.left + g * groupW + groupW / 2).toFixed(1)}" y="${margin.top + plotH + 16}" text-anchor="middle" fill="#333">${escapeXml(group)}</text>`,
    );
  });
  parts.push(`<line x1="${margin.left}" x2="${width - margin.right}" y1="${margin.top + plotH}" y2="${margin.top + plotH}" stroke="#333"/>`);
  let lx = margin.left;
  const ly = height - 18;
  for (const s of o.series) {
    parts.push(`<rect x="${lx}" y="${ly - 9}" width="12" height="12" fill="${s.color}"/>`);
    parts.push(`<text x="${lx + 16}" y="${ly}" fill="#333">${escapeXml(s.name)}</text>`);
    lx += 30 + s.name.length * 7;
  }
  parts.push("</svg>");
  return parts.join("\n") + "\n";
}

function niceCeil(v: number): number {
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}
