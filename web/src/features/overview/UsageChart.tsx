import { BarChart } from '../../components/charts';

/** Messages per day as bars; its own chunk, loaded when the overview has data to draw. */
export default function UsageChart({
  data,
  label,
}: {
  data: { day: string; messages: number }[];
  label: string;
}) {
  return (
    <BarChart
      h={220}
      width={720}
      data={data}
      dataKey="day"
      series={[{ name: 'messages', label, color: 'indigo.8' }]}
    />
  );
}
