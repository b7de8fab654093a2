import { Group, Text } from '@mantine/core';

/**
 * Small SVG charts for the overview: bars per day (side by side or stacked) and a donut. The
 * dashboard draws three charts; a chart library (recharts, about 115 KB gzipped) would be most of
 * the overview page's JavaScript. Each bar and slice carries its value as a tooltip (`<title>`),
 * and each chart an accessible label with its figures.
 */

/** A Mantine colour ("indigo.7") as its CSS variable. */
const colour = (name: string) => {
  const [hue, shade] = name.split('.');
  return shade ? `var(--mantine-color-${hue}-${shade})` : `var(--mantine-color-${hue}-6)`;
};

export interface Series {
  name: string;
  label: string;
  color: string;
}

function Legend({ series }: { series: { label: string; color: string }[] }) {
  return (
    <Group gap="sm" justify="center">
      {series.map((s) => (
        <Group key={s.label} gap={4} wrap="nowrap">
          <span
            aria-hidden
            style={{
              width: 10,
              height: 10,
              borderRadius: 2,
              background: colour(s.color),
              display: 'inline-block',
            }}
          />
          <Text size="xs">{s.label}</Text>
        </Group>
      ))}
    </Group>
  );
}

const PLOT_TOP = 8;
const AXIS = 18;

/** Bars per entry of `data` (one per series side by side, or stacked), with a scale on the left. */
export function BarChart<T extends Record<string, string | number>>({
  data,
  dataKey,
  series,
  h = 200,
  width = 320,
  type = 'default',
}: {
  data: T[];
  dataKey: keyof T & string;
  series: Series[];
  h?: number;
  /** Drawing units across (the chart fills its container's width); wider charts keep text small. */
  width?: number;
  type?: 'default' | 'stacked';
}) {
  const value = (row: T, name: string) => Number(row[name] ?? 0);
  const max = Math.max(
    1,
    ...data.map((row) =>
      type === 'stacked'
        ? series.reduce((sum, s) => sum + value(row, s.name), 0)
        : Math.max(...series.map((s) => value(row, s.name))),
    ),
  );
  const left = 8 + String(max).length * 7;
  const plotHeight = h - PLOT_TOP - AXIS;
  const slot = (width - left) / Math.max(1, data.length);
  const scale = (v: number) => (v / max) * plotHeight;
  const label = data
    .map((row) => `${row[dataKey]}: ${series.map((s) => `${s.label} ${value(row, s.name)}`).join(', ')}`)
    .join('; ');
  const labelEvery = Math.max(1, Math.ceil(data.length / Math.max(2, Math.floor(width / 90))));
  return (
    <div>
      <svg viewBox={`0 0 ${width} ${h}`} width="100%" height={h} role="img" aria-label={label}>
        {[0, 0.5, 1].map((f) => (
          <g key={f}>
            <line
              x1={left}
              x2={width}
              y1={PLOT_TOP + plotHeight - f * plotHeight}
              y2={PLOT_TOP + plotHeight - f * plotHeight}
              stroke="var(--mantine-color-gray-3)"
              strokeDasharray={f === 0 ? undefined : '3 3'}
            />
            <text
              x={left - 4}
              y={PLOT_TOP + plotHeight - f * plotHeight + 4}
              fontSize={10}
              textAnchor="end"
              fill="var(--mantine-color-dimmed)"
            >
              {Math.round(max * f)}
            </text>
          </g>
        ))}
        {data.map((row, i) => {
          const x = left + i * slot;
          const inner = slot * 0.7;
          let stacked = 0;
          return (
            <g key={String(row[dataKey])}>
              {series.map((s, k) => {
                const v = value(row, s.name);
                const height = scale(v);
                const barWidth = type === 'stacked' ? inner : inner / series.length;
                const bx = x + slot * 0.15 + (type === 'stacked' ? 0 : k * barWidth);
                const by = PLOT_TOP + plotHeight - height - (type === 'stacked' ? scale(stacked) : 0);
                if (type === 'stacked') stacked += v;
                return (
                  <rect
                    key={s.name}
                    x={bx}
                    y={by}
                    width={Math.max(1, barWidth - 1)}
                    height={height}
                    fill={colour(s.color)}
                  >
                    <title>{`${row[dataKey]} · ${s.label}: ${v}`}</title>
                  </rect>
                );
              })}
              {i % labelEvery === 0 && (
                <text
                  x={i === 0 ? x : x + slot / 2}
                  y={h - 4}
                  fontSize={10}
                  textAnchor={i === 0 ? 'start' : 'middle'}
                  fill="var(--mantine-color-dimmed)"
                >
                  {String(row[dataKey])}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <Legend series={series} />
    </div>
  );
}

/** A ring of the values' shares, each slice with its name and value as a tooltip. */
export function DonutChart({
  data,
  size = 160,
  thickness = 24,
}: {
  data: { name: string; value: number; color: string }[];
  size?: number;
  thickness?: number;
}) {
  const total = data.reduce((sum, d) => sum + d.value, 0) || 1;
  const radius = (size - thickness) / 2;
  const circumference = 2 * Math.PI * radius;
  let offset = 0;
  return (
    <div>
      <svg
        viewBox={`0 0 ${size} ${size}`}
        width={size}
        height={size}
        role="img"
        aria-label={data.map((d) => `${d.name}: ${d.value}`).join(', ')}
      >
        <g transform={`rotate(-90 ${size / 2} ${size / 2})`}>
          {data.map((d) => {
            const length = (d.value / total) * circumference;
            const slice = (
              <circle
                key={d.name}
                cx={size / 2}
                cy={size / 2}
                r={radius}
                fill="none"
                stroke={colour(d.color)}
                strokeWidth={thickness}
                strokeDasharray={`${length} ${circumference - length}`}
                strokeDashoffset={-offset}
              >
                <title>{`${d.name}: ${d.value}`}</title>
              </circle>
            );
            offset += length;
            return slice;
          })}
        </g>
      </svg>
      <Legend series={data.map((d) => ({ label: d.name, color: d.color }))} />
    </div>
  );
}
