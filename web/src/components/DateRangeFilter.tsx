import '@mantine/dates/styles.css';
import { DatePickerInput } from '@mantine/dates';

/** A range of days, either end open. */
export type DayRange = [string | null, string | null];

/** A list's filter by a range of days (cleared to show all). */
export function DateRangeFilter({
  label,
  value,
  onChange,
}: {
  label: string;
  value: DayRange;
  onChange: (value: DayRange) => void;
}) {
  return (
    <DatePickerInput
      type="range"
      label={label}
      clearable
      value={value}
      onChange={(range) => onChange(range as DayRange)}
      w={240}
    />
  );
}
