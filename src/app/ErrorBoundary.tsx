import { Component, type ReactNode } from 'react';

/** Keeps a failing view from blanking the page: shows the error and a way back. */
export class ErrorBoundary extends Component<
  { children: ReactNode; resetKey: string },
  { error: Error | null; key: string }
> {
  override state: { error: Error | null; key: string } = { error: null, key: this.props.resetKey };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  static getDerivedStateFromProps(props: { resetKey: string }, state: { error: Error | null; key: string }) {
    return props.resetKey !== state.key ? { error: null, key: props.resetKey } : null;
  }

  override render() {
    if (this.state.error) {
      return (
        <div role="alert" className="alert alert--error">
          <strong>This view failed.</strong> {this.state.error.message} <a href="#/">Back to the puzzle</a>
        </div>
      );
    }
    return this.props.children;
  }
}
