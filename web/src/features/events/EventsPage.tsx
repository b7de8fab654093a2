import '@mantine/dates/styles.css';
import {
  Badge,
  Button,
  Group,
  Modal,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Table,
  TextInput,
  Textarea,
} from '@mantine/core';
import { DatePickerInput } from '@mantine/dates';
import { useForm } from '@mantine/form';
import { useDisclosure } from '@mantine/hooks';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { useCreateEvent, useEvents } from './queries';
import type { EventBody, EventRow } from '../../api/types';
import { useCan } from '../../app/session';
import { PageTitle } from '../../components/PageTitle';
import { EmptyState, ErrorAlert } from '../../components/states';
import { formatDate, formatMoney } from '../../format';
import { PaymentFields, paymentBody, paymentValidation, timeOrderProblem } from './EventEditor';
import { useUnsavedChanges } from '../../components/unsaved-changes';
import { DataTable } from '../../components/DataTable';
import { FormActions } from '../../components/FormActions';

export const EVENT_STATUS_COLOUR: Record<EventRow['status'], string> = {
  draft: 'gray',
  selling: 'green',
  waitlist: 'orange',
  completed: 'blue',
  cancelled: 'red',
};

function day(value: string | Date | null | undefined): string | null {
  if (!value) return null;
  return typeof value === 'string' ? value.slice(0, 10) : value.toISOString().slice(0, 10);
}

function CreateEvent({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const form = useForm({
    initialValues: {
      title: '',
      event_date: '',
      event_time_start: '',
      event_time_end: '',
      capacity_total: 10 as number | string,
      location: '',
      description: '',
      price: '' as number | string,
      currency: 'EUR',
      payment_model: 'free',
      deposit_amount: '' as number | string,
      external_payment_url: '',
    },
    validate: {
      title: (v) =>
        v.trim() ? (v.length > 200 ? t('events.titleTooLong') : null) : t('events.titleRequired'),
      event_date: (v) => (v ? null : t('events.dateRequired')),
      capacity_total: (v) =>
        Number.isInteger(Number(v)) && Number(v) >= 0 ? null : t('events.capacityInvalid'),
      event_time_end: (_v, values) => timeOrderProblem(values, t),
      ...paymentValidation(t),
    },
  });
  const create = useCreateEvent();
  const submit = (values: typeof form.values) => {
    const body: EventBody = {
      title: values.title.trim(),
      event_date: day(values.event_date)!,
      event_time_start: values.event_time_start || null,
      event_time_end: values.event_time_end || null,
      capacity_total: Number(values.capacity_total),
      location: values.location.trim() || null,
      description: values.description.trim() || null,
      ...paymentBody(values),
    };
    create.mutate(body, {
      onSuccess: (event) => {
        form.reset();
        onClose();
        void navigate(`/events/${event.id}`);
      },
    });
  };
  // Creating opens the new event, so leaving only offers to discard.
  useUnsavedChanges({ dirty: () => opened && form.isDirty(), discard: () => form.reset() });
  return (
    <Modal opened={opened} onClose={onClose} title={t('events.create')}>
      <form onSubmit={form.onSubmit(submit)} noValidate>
        <Stack>
          {create.error && <ErrorAlert error={create.error} />}
          <TextInput
            label={t('events.eventTitle')}
            required
            data-autofocus
            {...form.getInputProps('title')}
          />
          {/* Date and times side by side from 576 px, one below the other on a phone. */}
          <SimpleGrid cols={{ base: 1, xs: 3 }} spacing="sm">
            <TextInput type="date" label={t('events.date')} required {...form.getInputProps('event_date')} />
            <TextInput
              type="time"
              label={t('events.timeStart')}
              {...form.getInputProps('event_time_start')}
            />
            <TextInput type="time" label={t('events.timeEnd')} {...form.getInputProps('event_time_end')} />
          </SimpleGrid>
          <NumberInput
            label={t('events.capacity')}
            required
            min={0}
            {...form.getInputProps('capacity_total')}
          />
          <TextInput label={t('events.location')} {...form.getInputProps('location')} />
          <Textarea
            label={t('events.description')}
            autosize
            minRows={2}
            {...form.getInputProps('description')}
          />
          <PaymentFields form={form} />
          <FormActions onCancel={onClose} pending={create.isPending} submit={t('events.createSubmit')} />
        </Stack>
      </form>
    </Modal>
  );
}

export function EventsPage() {
  const { t, i18n } = useTranslation();
  const canEdit = useCan('event:edit');
  const [opened, { open, close }] = useDisclosure();
  const [status, setStatus] = useState<string | null>(null);
  const [range, setRange] = useState<[string | null, string | null]>([null, null]);
  const query = {
    limit: 100,
    ...(status ? { status: status as EventRow['status'] } : {}),
    ...(range[0] ? { from_date: day(range[0])! } : {}),
    ...(range[1] ? { to_date: day(range[1])! } : {}),
  };
  const events = useEvents(query);

  return (
    <>
      <PageTitle title={t('events.title')}>
        {canEdit && <Button onClick={open}>{t('events.create')}</Button>}
      </PageTitle>
      <CreateEvent opened={opened} onClose={close} />
      <Group mb="md" align="flex-end">
        <Select
          label={t('events.status')}
          clearable
          value={status}
          onChange={setStatus}
          data={['draft', 'selling', 'waitlist', 'completed', 'cancelled'].map((s) => ({
            value: s,
            label: t(`events.statuses.${s}`),
          }))}
          w={170}
        />
        <DatePickerInput
          type="range"
          label={t('events.dateRange')}
          clearable
          value={range}
          onChange={(value) => setRange(value as [string | null, string | null])}
          w={240}
        />
      </Group>
      <DataTable
        query={events}
        isEmpty={events.data?.data.length === 0}
        empty={
          <EmptyState
            title={t('events.emptyTitle')}
            text={canEdit ? t('events.emptyText') : t('events.emptyTextViewer')}
            action={canEdit && <Button onClick={open}>{t('events.create')}</Button>}
          />
        }
        columns={[
          { label: t('events.date') },
          { label: t('events.eventTitle') },
          { label: t('events.status') },
          { label: t('events.booked'), align: 'right' as const },
          { label: t('events.price'), align: 'right' as const },
        ]}
        minWidth={560}
        highlightOnHover
      >
        {events.data?.data.map((event) => (
          <Table.Tr key={event.id}>
            <Table.Td>{formatDate(event.event_date, i18n.language)}</Table.Td>
            <Table.Td>
              <Link to={`/events/${event.id}`}>{event.title}</Link>
            </Table.Td>
            <Table.Td>
              <Badge color={EVENT_STATUS_COLOUR[event.status]} variant="light">
                {t(`events.statuses.${event.status}`)}
              </Badge>
            </Table.Td>
            <Table.Td ta="right">
              {event.capacity_booked} / {event.capacity_total}
              {event.capacity_waitlist > 0 && ` (+${event.capacity_waitlist})`}
            </Table.Td>
            <Table.Td ta="right">
              {event.payment_model === 'free'
                ? t('events.payment.free')
                : formatMoney(event.price, event.currency, i18n.language)}
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
    </>
  );
}
