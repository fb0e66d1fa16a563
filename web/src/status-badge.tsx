/** A run's status as a coloured word. */
export function StatusBadge(props: { status: string }) {
  return (
    <span class={`badge status-${props.status}`} data-status={props.status}>
      {props.status}
    </span>
  );
}
