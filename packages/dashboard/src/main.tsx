// The dashboard's entry: styles and the app into #root.
import { render } from 'preact';
import { App } from './app';
import './styles.css';

render(<App />, document.getElementById('root')!);
