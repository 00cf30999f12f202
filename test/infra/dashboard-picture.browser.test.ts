/**
 * The operator dashboard drawn from its definition (the synthesized DashboardBody, no account at
 * hand: test/support/dashboard-body.ts) in Chromium: every graph is shown with its title and a
 * legend line per series, none cut off. `UPDATE_SCREENSHOTS=1` also saves
 * docs/operator-dashboard.png, the picture in docs/operations.md#dashboard.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { STACK_NAME } from '../../infra/aws/webhook-subscriptions-app';
import { chromiumPath, launchChromium, saveScreenshot, withFailureScreenshot } from '../support/browser';
import { serviceApp } from '../support/cdk-app';
import { dashboardHtml, type DashboardWidget, dashboardWidgets, seriesOf } from '../support/dashboard-body';

const DOCS_PICTURE = fileURLToPath(new URL('../../docs/operator-dashboard.png', import.meta.url));

const describeWithChromium = chromiumPath ? describe : xdescribe;
if (!chromiumPath) console.log('dashboard picture suite not run: chromium is not installed (apt-get install chromium).');

describeWithChromium('the operator dashboard, drawn from its definition', () => {
  let browser: Browser;
  let page: Page;
  let widgets: DashboardWidget[];

  beforeAll(async () => {
    const resources = Template.fromStack(serviceApp({ bundle: false }).stack).toJSON().Resources;
    const dashboard = Object.values<any>(resources).find((resource) => resource.Type === 'AWS::CloudWatch::Dashboard'); // eslint-disable-line @typescript-eslint/no-explicit-any
    widgets = dashboardWidgets(dashboard.Properties.DashboardBody);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1216, height: 700 } });
    await page.setContent(dashboardHtml(`${STACK_NAME}-operations`, widgets));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('shows every graph with its title and every series in its legend, nothing cut off', () =>
    withFailureScreenshot(page, 'operator dashboard', async () => {
      const graphs = widgets.filter((widget) => widget.type === 'metric');
      expect(await page.locator('section[data-title]').count()).toBe(graphs.length);
      for (const widget of graphs) {
        const box = page.locator(`section[data-title="${widget.properties.title}"]`);
        await expect(box.locator('h2').textContent()).resolves.toBe(widget.properties.title);
        const legend = await box.locator('li b').allTextContents();
        expect(legend).toEqual(seriesOf(widget).map((series) => series.label));
        // The last legend line ends inside its box: the widget is tall enough for its series.
        const [boxEdge, lastLine] = await Promise.all([box.boundingBox(), box.locator('li').last().boundingBox()]);
        expect(lastLine!.y + lastLine!.height).toBeLessThanOrEqual(boxEdge!.y + boxEdge!.height);
      }
      if (process.env.UPDATE_SCREENSHOTS === '1') await saveScreenshot(page, DOCS_PICTURE);
    }));
});
