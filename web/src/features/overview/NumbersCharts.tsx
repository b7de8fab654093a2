import { BarChart, DonutChart } from '../../components/charts';
import { SimpleGrid, Stack, Text } from '@mantine/core';

export interface NumbersChartTexts {
  conversationsPerDay: string;
  conversations: string;
  handedOver: string;
  repliesPerDay: string;
  fromKnowledge: string;
  withoutKnowledge: string;
  ratings: string;
  stars: (n: number) => string;
  noRatings: string;
}

/** The overview's charts: conversations and hand-overs, replies by knowledge, ratings. Own chunk. */
export default function NumbersCharts({
  days,
  distribution,
  texts,
}: {
  days: {
    day: string;
    conversations: number;
    handed_over: number;
    replies: number;
    replies_from_knowledge: number;
  }[];
  distribution: number[];
  texts: NumbersChartTexts;
}) {
  const replies = days.map((d) => ({
    day: d.day,
    knowledge: d.replies_from_knowledge,
    without: d.replies - d.replies_from_knowledge,
  }));
  const colours = ['red.7', 'orange.6', 'yellow.5', 'lime.6', 'green.7'];
  const ratings = distribution
    .map((value, i) => ({ name: texts.stars(i + 1), value, color: colours[i]! }))
    .filter((r) => r.value > 0);
  return (
    <SimpleGrid cols={{ base: 1, md: 3 }} data-testid="numbers-charts">
      <Stack gap={4}>
        <Text size="sm" fw={600}>
          {texts.conversationsPerDay}
        </Text>
        <BarChart
          h={200}
          data={days}
          dataKey="day"
          series={[
            { name: 'conversations', label: texts.conversations, color: 'indigo.7' },
            { name: 'handed_over', label: texts.handedOver, color: 'orange.6' },
          ]}
        />
      </Stack>
      <Stack gap={4}>
        <Text size="sm" fw={600}>
          {texts.repliesPerDay}
        </Text>
        <BarChart
          h={200}
          data={replies}
          dataKey="day"
          type="stacked"
          series={[
            { name: 'knowledge', label: texts.fromKnowledge, color: 'teal.7' },
            { name: 'without', label: texts.withoutKnowledge, color: 'gray.5' },
          ]}
        />
      </Stack>
      <Stack gap={4} align="center">
        <Text size="sm" fw={600}>
          {texts.ratings}
        </Text>
        {ratings.length > 0 ? (
          <DonutChart data={ratings} size={160} thickness={24} />
        ) : (
          <Text size="sm" c="dimmed">
            {texts.noRatings}
          </Text>
        )}
      </Stack>
    </SimpleGrid>
  );
}
