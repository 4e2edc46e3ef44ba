// One Grafana time-series panel, drawn by Grafana's own components (@grafana/ui's
// PanelChrome and TimeSeries, uPlot underneath) from a query's result in window.PANEL: the
// Grafana server itself cannot be installed here, its panel components can.
import 'uplot/dist/uPlot.min.css';
import React from 'react';
import { createRoot } from 'react-dom/client';
import { GlobalStyles, PanelChrome, ThemeContext, TimeSeries } from '@grafana/ui';
import { FieldType, applyFieldOverrides, createTheme, dateTime, toDataFrame } from '@grafana/data';

const panel = window.PANEL;
const theme = createTheme({ colors: { mode: 'dark' } });
// As Grafana's PostgreSQL data source returns a time series: a time field and a number field
// named by the query's column alias, with a time-series panel's default field config.
const frames = applyFieldOverrides({
  data: [toDataFrame({
    fields: [
      { name: 'time', type: FieldType.time, values: panel.times },
      { name: panel.field, type: FieldType.number, values: panel.values, config: { unit: panel.unit } },
    ],
  })],
  fieldConfig: {
    defaults: {
      custom: { drawStyle: 'line', lineWidth: 1, fillOpacity: 0, showPoints: 'never', pointSize: 4, spanNulls: false, axisPlacement: 'auto' },
    },
    overrides: [],
  },
  replaceVariables: (s) => s,
  theme,
  timeZone: 'utc',
});
const timeRange = { from: dateTime(panel.from), to: dateTime(panel.to), raw: { from: dateTime(panel.from), to: dateTime(panel.to) } };

function Panel() {
  return (
    <ThemeContext.Provider value={theme}>
      <GlobalStyles />
      <div style={{ padding: 8 }}>
        <PanelChrome title={panel.title} width={panel.width} height={panel.height}>
          {(width, height) => (
            <TimeSeries frames={frames} width={width} height={height} timeRange={timeRange} timeZone="utc"
              legend={{ showLegend: true, displayMode: 'list', placement: 'bottom', calcs: [] }} />
          )}
        </PanelChrome>
      </div>
    </ThemeContext.Provider>
  );
}

createRoot(document.getElementById('root')).render(<Panel />);
