import { render } from 'preact';
import { App } from './app.js';
import { startLiveStream } from './live-stream.js';

startLiveStream();
render(<App />, document.getElementById('app')!);
