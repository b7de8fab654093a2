/** The colour of an inbox conversation's state, in the list and on the conversation. */
export const STATE_COLOUR: Record<string, string> = {
  waiting: 'orange',
  with_person: 'blue',
  bot: 'green',
  closed: 'gray',
};
