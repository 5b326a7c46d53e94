<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>hetplan::gui::BreakdownChart</name>
    <message>
        <source>90 % interval</source>
        <translation>90% 区间</translation>
    </message>
    <message>
        <source>Run: predicted</source>
        <translation>运行：预测</translation>
    </message>
    <message>
        <source>Run: measured</source>
        <translation>运行：实测</translation>
    </message>
    <message>
        <source>Run: calibrated</source>
        <translation>运行：校准后</translation>
    </message>
    <message>
        <source>Time breakdown</source>
        <translation>时间分解</translation>
    </message>
    <message>
        <source>seconds per iteration</source>
        <translation>每次迭代的秒数</translation>
    </message>
    <message>
        <source>No plan yet</source>
        <translation>尚无方案</translation>
    </message>
    <message>
        <source>seconds per request batch</source>
        <translation>每个请求批次的秒数</translation>
    </message>
    <message>
        <source>Overall</source>
        <translation>整体</translation>
    </message>
    <message>
        <source>Time breakdown: %1 per %2</source>
        <translation>时间分解：每%2 %1</translation>
    </message>
    <message>
        <source>request batch</source>
        <translation>请求批次</translation>
    </message>
    <message>
        <source>iteration</source>
        <translation>迭代</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::CalibrationPreview</name>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>GPU type %1 (%2)</source>
        <translation>GPU 类型 %1（%2）</translation>
    </message>
    <message>
        <source>every %1 link</source>
        <translation>所有 %1 链路</translation>
    </message>
    <message>
        <source>fitted</source>
        <translation>已拟合</translation>
    </message>
    <message>
        <source>AT BOUND, accepted</source>
        <translation>处于边界，已接受</translation>
    </message>
    <message>
        <source>REFUSED: fit at the bound (%1); kept</source>
        <translation>已拒绝：拟合值处于边界（%1）；保持不变</translation>
    </message>
    <message>
        <source>not identifiable; kept</source>
        <translation>不可辨识；保持不变</translation>
    </message>
    <message>
        <source>did not run; kept</source>
        <translation>未运行；保持不变</translation>
    </message>
    <message>
        <source>Calibration Preview</source>
        <translation>校准预览</translation>
    </message>
    <message numerus="yes">
        <source>Apply changes %n figure(s) of the cluster; the others are kept as they are.</source>
        <translation>
            <numerusform>应用将更改集群的 %n 个参数；其余保持不变。</numerusform>
        </translation>
    </message>
    <message>
        <source>The shown plan&apos;s predicted iteration time: %1 → %2.</source>
        <translation>当前方案的预测迭代时间：%1 → %2。</translation>
    </message>
    <message>
        <source>Residual of the phase times (rms of ln(predicted / measured)): %1 → %2.</source>
        <translation>各阶段时间的残差（ln(预测 / 实测) 的均方根）：%1 → %2。</translation>
    </message>
    <message>
        <source>Figure</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Before</source>
        <translation>之前</translation>
    </message>
    <message>
        <source>After</source>
        <translation>之后</translation>
    </message>
    <message>
        <source>±</source>
        <translation>±</translation>
    </message>
    <message>
        <source>Touches</source>
        <translation>涉及</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>&amp;Apply</source>
        <translation>应用(&amp;A)</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::Calibrator</name>
    <message>
        <source>&amp;Calibrate from Measurement…</source>
        <translation>根据测量结果校准(&amp;C)…</translation>
    </message>
    <message>
        <source>Calibrate from &amp;Last Run</source>
        <translation>根据上次运行校准(&amp;L)</translation>
    </message>
    <message>
        <source>Fit the cluster&apos;s figures to the run the last launch measured, and re-plan</source>
        <translation>按上次启动测得的运行拟合集群参数，并重新规划</translation>
    </message>
    <message>
        <source>Fit the cluster&apos;s figures to measured runs of the shown plan</source>
        <translation>用当前方案的实测运行拟合集群参数</translation>
    </message>
    <message>
        <source>Calibrate</source>
        <translation>校准</translation>
    </message>
    <message>
        <source>Measurements of the shown plan</source>
        <translation>当前方案的测量文件</translation>
    </message>
    <message>
        <source>Measurements (*.json);;All files (*)</source>
        <translation>测量文件 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>the last launch</source>
        <translation>最近一次启动</translation>
    </message>
    <message>
        <source>A calibration is still running; wait for it to finish.</source>
        <translation>校准仍在进行；请等待其完成。</translation>
    </message>
    <message>
        <source>Calibration needs the training plan the runs were made from: plan it first, then calibrate.</source>
        <translation>校准需要这些运行所用的训练方案：请先规划，再校准。</translation>
    </message>
    <message>
        <source>Calibration was stopped; the cluster is as it was.</source>
        <translation>校准已停止；集群保持原样。</translation>
    </message>
    <message>
        <source>The cluster changed while calibrating, so the fit is not applied; calibrate again to fit the cluster as it is now.</source>
        <translation>校准期间集群已被修改，因此未应用拟合结果；请重新校准以拟合当前的集群。</translation>
    </message>
    <message numerus="yes">
        <source>Calibrated from %n run(s): rms error of the phase times %1 → %2</source>
        <translation>
            <numerusform>根据 %n 次运行校准：各阶段时间的均方根误差 %1 → %2</numerusform>
        </translation>
    </message>
    <message>
        <source>the shown plan</source>
        <translation>当前方案</translation>
    </message>
    <message>
        <source>The cluster changed while the preview was open, so the fit is not applied; calibrate again to fit the cluster as it is now.</source>
        <translation>预览打开期间集群已更改，因此不应用此次拟合；请重新校准以拟合当前的集群。</translation>
    </message>
    <message>
        <source>Calibrate from measurement</source>
        <translation>根据测量结果校准</translation>
    </message>
    <message>
        <source>Calibration changed no figure of the cluster; see the preview for why.</source>
        <translation>校准未更改集群的任何参数；原因见预览。</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::CompareModel</name>
    <message>
        <source>The interval is the catalog&apos;s wide default; probe or calibrate to narrow it.</source>
        <translation>该区间为目录的宽默认值；运行探测或校准可使其收窄。</translation>
    </message>
    <message>
        <source>90 % interval</source>
        <translation>90% 区间</translation>
    </message>
    <message>
        <source>%1; sorted by its 90th percentile, %2</source>
        <translation>%1；按其第 90 百分位数 %2 排序</translation>
    </message>
    <message>
        <source>%1 (stopped early)</source>
        <translation>%1（提前停止）</translation>
    </message>
    <message>
        <source>Planner</source>
        <translation>规划器</translation>
    </message>
    <message>
        <source>Iteration time</source>
        <translation>迭代时间</translation>
    </message>
    <message>
        <source>MFU</source>
        <translation>MFU</translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation>词元/秒</translation>
    </message>
    <message>
        <source>Pipelines</source>
        <translation>流水线</translation>
    </message>
    <message>
        <source>Time to plan</source>
        <translation>规划用时</translation>
    </message>
    <message>
        <source>no plan fits</source>
        <translation>没有可容纳的方案</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>not available</source>
        <translation>不可用</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::CompareView</name>
    <message>
        <source>Planners compared</source>
        <translation>规划器对比</translation>
    </message>
    <message>
        <source>Iteration time (s)</source>
        <translation>迭代时间（秒）</translation>
    </message>
    <message>
        <source>MFU (%)</source>
        <translation>MFU（%）</translation>
    </message>
    <message>
        <source>iteration time (s)</source>
        <translation>迭代时间（秒）</translation>
    </message>
    <message>
        <source>Press Compare all</source>
        <translation>请按“全部对比”</translation>
    </message>
    <message>
        <source>Choose a planner to see its plan and details.</source>
        <translation>选择一个规划器以查看其方案和详情。</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>%1: %2 per iteration, MFU %3, planned in %4</source>
        <translation>%1：每次迭代 %2，MFU %3，规划用时 %4</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::ConvergenceChart</name>
    <message>
        <source>Search convergence</source>
        <translation>搜索收敛</translation>
    </message>
    <message>
        <source>iteration</source>
        <translation>迭代</translation>
    </message>
    <message>
        <source>best iteration time (s)</source>
        <translation>最佳迭代时间（秒）</translation>
    </message>
    <message>
        <source>No search yet</source>
        <translation>尚未搜索</translation>
    </message>
    <message>
        <source>Search convergence: the best plan&apos;s SLO attainment, which HexGen maximises</source>
        <translation>搜索收敛：最佳方案的 SLO 达成率（HexGen 使其最大化）</translation>
    </message>
    <message>
        <source>Search convergence: the best plan&apos;s iteration time, which the planner minimises</source>
        <translation>搜索收敛：最佳方案的迭代时间（规划器使其最小化）</translation>
    </message>
    <message>
        <source>best SLO attainment (%)</source>
        <translation>最佳 SLO 达成率（%）</translation>
    </message>
    <message>
        <source>%1 has reported no search steps yet</source>
        <translation>%1 尚未报告任何搜索步骤</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::MemoryChart</name>
    <message>
        <source>Memory per GPU</source>
        <translation>每个 GPU 的显存</translation>
    </message>
    <message>
        <source>Capacity</source>
        <translation>容量</translation>
    </message>
    <message>
        <source>Used</source>
        <translation>已用</translation>
    </message>
    <message>
        <source>Over capacity</source>
        <translation>超出容量</translation>
    </message>
    <message>
        <source>GiB</source>
        <translation>GiB</translation>
    </message>
    <message>
        <source>No plan yet</source>
        <translation>尚无方案</translation>
    </message>
    <message>
        <source>Memory per GPU: every GPU fits</source>
        <translation>每个 GPU 的显存：全部 GPU 均可容纳</translation>
    </message>
    <message>
        <source>Memory per GPU: over capacity on %1 of %2 GPUs</source>
        <translation>每个 GPU 的显存：%2 个 GPU 中有 %1 个超出容量</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::PlanFreshness</name>
    <message>
        <source>the cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>the model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>the workload</source>
        <translation>工作负载</translation>
    </message>
    <message>
        <source>the cost model</source>
        <translation>代价模型</translation>
    </message>
    <message>
        <source>%1 and %2</source>
        <translation>%1和%2</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>%1 changed since this plan was made</source>
        <translation>自该方案生成以来，%1已更改</translation>
    </message>
    <message>
        <source>%1 (machine(s) %2)</source>
        <translation>%1（机器 %2）</translation>
    </message>
    <message>
        <source>the plan uses GPUs the cluster no longer has (%1); re-plan</source>
        <translation>方案使用了集群中已不存在的 GPU（%1）；请重新规划</translation>
    </message>
    <message>
        <source>the plan does not fit what is planned now (%1); re-plan</source>
        <translation>方案与当前的规划内容不符（%1）；请重新规划</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::PlanView</name>
    <message>
        <source>No plan yet. Choose a planner and press Plan.</source>
        <translation>尚无方案。请选择规划器并按“规划”。</translation>
    </message>
    <message>
        <source>batch %1</source>
        <translation>批大小 %1</translation>
    </message>
    <message>
        <source>TP %1 · DP %2</source>
        <translation>TP %1 · DP %2</translation>
    </message>
    <message>
        <source>per micro-batch: forward %1, backward %2, hop %3</source>
        <translation>每个微批次：前向 %1，反向 %2，传输 %3</translation>
    </message>
    <message>
        <source>micro-batches: %1 × %2</source>
        <translation>微批次：%1 × %2</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <comment>stage name · its layers, e.g. Stage 0 · 12–30 (19 layers)</comment>
        <translation>%1 · %2</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::PlannerSettingsDialog</name>
    <message>
        <source>Planner Settings</source>
        <translation>规划器设置</translation>
    </message>
    <message>
        <source>Every planner</source>
        <translation>所有规划器</translation>
    </message>
    <message>
        <source>planner&apos;s default</source>
        <translation>规划器默认值</translation>
    </message>
    <message>
        <source>How many search steps a planner takes at most</source>
        <translation>规划器最多执行的搜索步数</translation>
    </message>
    <message>
        <source>&amp;Iterations:</source>
        <translation>迭代次数(&amp;I)：</translation>
    </message>
    <message>
        <source>The same seed gives the same plan for the same cluster and workload</source>
        <translation>相同的种子在相同的集群和工作负载下给出相同的方案</translation>
    </message>
    <message>
        <source>&amp;Seed:</source>
        <translation>随机种子(&amp;S)：</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>A planner still searching after this time stops and returns its best plan so far</source>
        <translation>超过此时间仍在搜索的规划器会停止，并返回目前最佳的方案</translation>
    </message>
    <message>
        <source>&amp;Time limit:</source>
        <translation>时间上限(&amp;T)：</translation>
    </message>
    <message>
        <source>%1&apos;s own parameters</source>
        <translation>%1 的专有参数</translation>
    </message>
    <message>
        <source>%1 has no parameters of its own.</source>
        <translation>%1 没有专有参数。</translation>
    </message>
    <message>
        <source>%1
Valid: %2; default %3</source>
        <translation>%1
有效值：%2；默认值 %3</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::ProblemsView</name>
    <message>
        <source>Machine %1 has no network path to any other machine: no plan can use its GPUs together with the others. Connect it.</source>
        <translation>机器 %1 与其他机器之间没有网络路径：任何方案都无法将它的 GPU 与其他 GPU 一起使用。请连接它。</translation>
    </message>
    <message>
        <source>Click to select %1 in the cluster</source>
        <translation>点击以在集群中选中 %1</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::ResultsPanel</name>
    <message>
        <source>Breakdown</source>
        <translation>分解</translation>
    </message>
    <message>
        <source>Sweep</source>
        <translation>扫描</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>显存</translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation>时间线</translation>
    </message>
    <message>
        <source>Convergence</source>
        <translation>收敛</translation>
    </message>
    <message>
        <source>Serving</source>
        <translation>推理服务</translation>
    </message>
    <message>
        <source>Plan</source>
        <translation>方案</translation>
    </message>
    <message>
        <source>Charts</source>
        <translation>图表</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>Problems</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>What if</source>
        <translation>假设分析</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>&amp;Plan</source>
        <translation>规划(&amp;P)</translation>
    </message>
    <message>
        <source>Search for the best plan with the chosen planner</source>
        <translation>用所选规划器搜索最佳方案</translation>
    </message>
    <message>
        <source>&amp;Compare all planners</source>
        <translation>对比全部规划器(&amp;C)</translation>
    </message>
    <message>
        <source>C&amp;ancel</source>
        <translation>取消(&amp;A)</translation>
    </message>
    <message>
        <source>P&amp;lanner</source>
        <translation>规划器(&amp;L)</translation>
    </message>
    <message>
        <source>Default for the workload</source>
        <translation>工作负载的默认规划器</translation>
    </message>
    <message>
        <source>C&amp;ost model</source>
        <translation>代价模型(&amp;O)</translation>
    </message>
    <message>
        <source>Export plan &amp;file…</source>
        <translation>导出方案文件(&amp;F)…</translation>
    </message>
    <message>
        <source>Export plan &amp;view as image…</source>
        <translation>将方案视图导出为图像(&amp;V)…</translation>
    </message>
    <message>
        <source>Export &amp;chart as image…</source>
        <translation>将图表导出为图像(&amp;C)…</translation>
    </message>
    <message>
        <source>Export &amp;breakdown as CSV…</source>
        <translation>将时间分解导出为 CSV(&amp;B)…</translation>
    </message>
    <message>
        <source>Choose a model first</source>
        <translation>请先选择模型</translation>
    </message>
    <message>
        <source>%1: iteration %2</source>
        <translation>%1：第 %2 次迭代</translation>
    </message>
    <message>
        <source> · nothing fits yet</source>
        <translation> · 尚无可容纳的方案</translation>
    </message>
    <message>
        <source>Cancelled before any plan was found</source>
        <translation>在找到任何方案之前已取消</translation>
    </message>
    <message>
        <source>No plan found</source>
        <translation>未找到方案</translation>
    </message>
    <message>
        <source>Stopped: best plan so far %1, MFU %2</source>
        <translation>已停止：目前最佳方案 %1，MFU %2</translation>
    </message>
    <message>
        <source>Stopped: best plan so far: slowest replica %1, SLO attainment %2</source>
        <translation>已停止：目前最佳方案的最慢副本 %1，SLO 达成率 %2</translation>
    </message>
    <message>
        <source>Planned: slowest replica %1, SLO attainment %2</source>
        <translation>规划完成：最慢副本 %1，SLO 达成率 %2</translation>
    </message>
    <message>
        <source>Planned: %1 per iteration, MFU %2</source>
        <translation>规划完成：每次迭代 %1，MFU %2</translation>
    </message>
    <message>
        <source>Inference plans have no 1F1B schedule</source>
        <translation>推理方案没有 1F1B 调度</translation>
    </message>
    <message>
        <source>Export plan</source>
        <translation>导出方案</translation>
    </message>
    <message>
        <source>Plan files (*.plan.json *.json)</source>
        <translation>方案文件 (*.plan.json *.json)</translation>
    </message>
    <message>
        <source>Export plan view</source>
        <translation>导出方案视图</translation>
    </message>
    <message>
        <source>Export chart</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG drawing (*.svg);;PDF (*.pdf)</source>
        <translation>PNG 图像 (*.png);;SVG 矢量图 (*.svg);;PDF (*.pdf)</translation>
    </message>
    <message>
        <source>Export image</source>
        <translation>导出图像</translation>
    </message>
    <message>
        <source>Export breakdown</source>
        <translation>导出时间分解</translation>
    </message>
    <message>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
    <message>
        <source>Out of date: %1</source>
        <translation>已过时：%1</translation>
    </message>
    <message>
        <source>The plan on show uses GPUs the cluster no longer has: %1. Re-plan for the cluster as drawn.</source>
        <translation>所显示的方案使用了集群中已不存在的 GPU：%1。请按当前绘制的集群重新规划。</translation>
    </message>
    <message>
        <source>Plan (out of date)</source>
        <translation>方案（已过时）</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>Planner &amp;Settings…</source>
        <translation>规划器设置(&amp;S)…</translation>
    </message>
    <message>
        <source> · best so far %1, MFU %2</source>
        <translation> · 目前最佳 %1，MFU %2</translation>
    </message>
    <message>
        <source>Charts (out of date)</source>
        <translation>图表（已过时）</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::ResultsText</name>
    <message>
        <source>%1 ± %2 (%3 %)</source>
        <translation>%1 ± %2（%3%）</translation>
    </message>
    <message>
        <source>%1 (%2 %: %3)</source>
        <translation>%1（%2%：%3）</translation>
    </message>
    <message>
        <source>GPU types %1</source>
        <translation>GPU 型号 %1</translation>
    </message>
    <message>
        <source>link classes %1</source>
        <translation>链路类别 %1</translation>
    </message>
    <message>
        <source>Extrapolates (no measured figure): %1</source>
        <translation>外推（无实测数据）：%1</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 毫秒</translation>
    </message>
    <message>
        <source>%1 µs</source>
        <translation>%1 微秒</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1%</translation>
    </message>
    <message>
        <source>%1 GiB</source>
        <translation>%1 GiB</translation>
    </message>
    <message>
        <source>%1 GB/s</source>
        <translation>%1 GB/s</translation>
    </message>
    <message>
        <source>Replica %1</source>
        <translation>副本 %1</translation>
    </message>
    <message>
        <source>Pipeline %1</source>
        <translation>流水线 %1</translation>
    </message>
    <message>
        <source>All links between machines</source>
        <translation>机器之间的全部链路</translation>
    </message>
    <message>
        <source>All links inside machines</source>
        <translation>机器内部的全部链路</translation>
    </message>
    <message>
        <source>Link %1 – %2</source>
        <translation>链路 %1 – %2</translation>
    </message>
    <message>
        <source>Inside %1</source>
        <translation>%1 内部</translation>
    </message>
    <message>
        <source>Compute</source>
        <translation>计算</translation>
    </message>
    <message>
        <source>TP comm</source>
        <translation>TP 通信</translation>
    </message>
    <message>
        <source>PP comm</source>
        <translation>PP 通信</translation>
    </message>
    <message>
        <source>DP comm</source>
        <translation>DP 通信</translation>
    </message>
    <message>
        <source>Bubble</source>
        <translation>气泡</translation>
    </message>
    <message>
        <source>Stage %1</source>
        <translation>阶段 %1</translation>
    </message>
    <message>
        <source>%1 (1 layer)</source>
        <translation>%1（1 层）</translation>
    </message>
    <message>
        <source>%1–%2 (%3 layers)</source>
        <translation>%1–%2（%3 层）</translation>
    </message>
    <message>
        <source>Out of date: %1</source>
        <translation>已过时：%1</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::ServedRunView</name>
    <message>
        <source>Prefill</source>
        <translation>预填充</translation>
    </message>
    <message>
        <source>Per output token</source>
        <translation>每输出词元</translation>
    </message>
    <message>
        <source>Queueing</source>
        <translation>排队</translation>
    </message>
    <message>
        <source>%1 (90 %: %2)</source>
        <translation>%1（90%：%2）</translation>
    </message>
    <message>
        <source>Open Serving Run…</source>
        <translation>打开推理服务运行…</translation>
    </message>
    <message>
        <source>Compare a serving run of this plan (serving-measurement.json, written by hetplan-cli run or launch) with the simulation of its requests</source>
        <translation>将本方案的一次推理服务运行（由 hetplan-cli run 或 launch 写出的 serving-measurement.json）与其请求的模拟对比</translation>
    </message>
    <message>
        <source>Serving Run of the Shown Plan</source>
        <translation>当前方案的推理服务运行</translation>
    </message>
    <message>
        <source>Serving measurements (*.json);;All files (*)</source>
        <translation>推理服务测量 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Request latency, measured and simulated</source>
        <translation>请求延迟：实测与模拟</translation>
    </message>
    <message>
        <source>Simulated, 90 % band</source>
        <translation>模拟，90% 区间带</translation>
    </message>
    <message>
        <source>Simulated</source>
        <translation>模拟</translation>
    </message>
    <message>
        <source>Measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>latency (s)</source>
        <translation>延迟（秒）</translation>
    </message>
    <message>
        <source>requests finished (%)</source>
        <translation>已完成请求（%）</translation>
    </message>
    <message>
        <source>Per replica, measured and simulated (means)</source>
        <translation>每个副本：实测与模拟（均值）</translation>
    </message>
    <message>
        <source>Simulated, 90 % interval</source>
        <translation>模拟，90% 区间</translation>
    </message>
    <message>
        <source>The serving run is not shown: %1</source>
        <translation>未显示该推理服务运行：%1</translation>
    </message>
    <message>
        <source>show the serving plan it ran first.</source>
        <translation>请先显示它所运行的推理方案。</translation>
    </message>
    <message>
        <source>the shown plan</source>
        <translation>当前方案</translation>
    </message>
    <message>
        <source>the first %1 are warm-up, left out of the figures.</source>
        <translation>前 %1 个为预热请求，不计入统计。</translation>
    </message>
    <message>
        <source>none was warm-up.</source>
        <translation>没有预热请求。</translation>
    </message>
    <message>
        <source>Serving run %1 (%2, scale %3, batch %4): %5 requests, %6 completed, %7 failed; %8</source>
        <translation>推理服务运行 %1（%2，缩放 %3，批大小 %4）：%5 个请求，完成 %6 个，失败 %7 个；%8</translation>
    </message>
    <message>
        <source>SLO attainment (%1): measured %2, simulated %3 (90 %: %4–%5). Latency p50: measured %6, simulated %7; p99: measured %8, simulated %9.</source>
        <translation>SLO 达成率（%1）：实测 %2，模拟 %3（90%：%4–%5）。延迟 p50：实测 %6，模拟 %7；p99：实测 %8，模拟 %9。</translation>
    </message>
    <message>
        <source>%1: %2 of its requests failed: %3</source>
        <translation>%1：其中 %2 个请求失败：%3</translation>
    </message>
    <message>
        <source>The run used CPU ranks: the simulation predicts them only with a cluster that describes them (an imported CPU probe, then calibration).</source>
        <translation>该运行使用 CPU 进程：只有当集群描述了这些 CPU（导入 CPU 探测结果并校准）时，模拟才能预测它们。</translation>
    </message>
    <message>
        <source>SLO (%1)</source>
        <translation>SLO（%1）</translation>
    </message>
    <message>
        <source>%1, by replica</source>
        <translation>%1（按副本）</translation>
    </message>
    <message>
        <source>ms</source>
        <translation>毫秒</translation>
    </message>
    <message>
        <source>s</source>
        <translation>秒</translation>
    </message>
    <message>
        <source>Save Ser&amp;ving Run…</source>
        <translation>保存推理服务运行(&amp;V)…</translation>
    </message>
    <message>
        <source>Save the serving run of the Serving tab as serving-measurement.json, as hetplan-cli run --out writes it</source>
        <translation>将“推理服务”标签页中的运行保存为 serving-measurement.json，与 hetplan-cli run --out 写出的相同</translation>
    </message>
    <message>
        <source>Save Serving Run</source>
        <translation>保存推理服务运行</translation>
    </message>
    <message>
        <source>The serving run was not saved: %1</source>
        <translation>推理服务运行未保存：%1</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::ServingView</name>
    <message>
        <source>Request latency per replica</source>
        <translation>每个副本的请求延迟</translation>
    </message>
    <message>
        <source>Latency of one batch (prefill + decode)</source>
        <translation>一个批次的延迟（预填充 + 解码）</translation>
    </message>
    <message>
        <source>SLO (%1)</source>
        <translation>SLO（%1）</translation>
    </message>
    <message>
        <source>seconds</source>
        <translation>秒</translation>
    </message>
    <message>
        <source>SLO attainment against request rate</source>
        <translation>SLO 达成率与请求速率</translation>
    </message>
    <message>
        <source>SLO attainment (%)</source>
        <translation>SLO 达成率（%）</translation>
    </message>
    <message>
        <source>p50 latency (s)</source>
        <translation>p50 延迟（秒）</translation>
    </message>
    <message>
        <source>p99 latency (s)</source>
        <translation>p99 延迟（秒）</translation>
    </message>
    <message>
        <source>requests per second</source>
        <translation>每秒请求数</translation>
    </message>
    <message>
        <source>latency (s)</source>
        <translation>延迟（秒）</translation>
    </message>
    <message>
        <source>No inference plan yet</source>
        <translation>尚无推理方案</translation>
    </message>
    <message>
        <source>No replica latencies</source>
        <translation>没有副本延迟</translation>
    </message>
    <message>
        <source>; SLO %1 per request</source>
        <translation>；每个请求的 SLO 为 %1</translation>
    </message>
    <message>
        <source>Needs a serving simulation of the plan</source>
        <translation>需要对该方案进行推理服务模拟</translation>
    </message>
    <message>
        <source>replicas: %1; slowest %2, %3 tokens/s</source>
        <translation>副本：%1；最慢 %2，%3 词元/秒</translation>
    </message>
    <message>
        <source>At %1 requests/s: %2 within the SLO of %3, latency p50 %4, p99 %5; up to %6 requests/s at %7 attainment</source>
        <translation>每秒 %1 个请求时：%2 满足 %3 的 SLO，延迟 p50 %4、p99 %5；达标率 %7 时最高每秒 %6 个请求</translation>
    </message>
    <message>
        <source> (SLO = %1 × %2 on A100s)</source>
        <translation>（SLO = %1 × A100 上的 %2）</translation>
    </message>
    <message>
        <source>90 % interval</source>
        <translation>90% 区间</translation>
    </message>
    <message>
        <source>90 % interval: latency p50 %1, p99 %2, SLO attainment %3–%4</source>
        <translation>90% 区间：延迟 p50 %1，p99 %2，SLO 达成率 %3–%4</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::StaleBanner</name>
    <message>
        <source>Re-evaluate</source>
        <translation>重新评估</translation>
    </message>
    <message>
        <source>Re-plan</source>
        <translation>重新规划</translation>
    </message>
    <message>
        <source>Evaluate this plan for the cluster, model and workload as they are now</source>
        <translation>按当前的集群、模型和工作负载评估此方案</translation>
    </message>
    <message>
        <source>Search for the best plan for the cluster as it is now</source>
        <translation>为当前的集群搜索最佳方案</translation>
    </message>
    <message>
        <source>&lt;b&gt;Out of date:&lt;/b&gt; %1. The figures below are for the plan as it was made.</source>
        <translation>&lt;b&gt;已过时：&lt;/b&gt;%1。下面的数字是该方案生成时的结果。</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::SweepView</name>
    <message>
        <source>Sweep:</source>
        <translation>扫描：</translation>
    </message>
    <message>
        <source>Run sweep</source>
        <translation>运行扫描</translation>
    </message>
    <message>
        <source>Bandwidth sweep</source>
        <translation>带宽扫描</translation>
    </message>
    <message>
        <source>bandwidth (GB/s)</source>
        <translation>带宽（GB/s）</translation>
    </message>
    <message>
        <source>iteration time (s)</source>
        <translation>迭代时间（秒）</translation>
    </message>
    <message>
        <source>MFU (%)</source>
        <translation>MFU（%）</translation>
    </message>
    <message>
        <source>Current plan</source>
        <translation>当前方案</translation>
    </message>
    <message>
        <source>Re-planned</source>
        <translation>重新规划</translation>
    </message>
    <message>
        <source>MFU, re-planned</source>
        <translation>MFU（重新规划）</translation>
    </message>
    <message>
        <source>Computed %1 of %2 points…</source>
        <translation>已计算 %1/%2 个点…</translation>
    </message>
    <message>
        <source>Cancel sweep</source>
        <translation>取消扫描</translation>
    </message>
    <message>
        <source>Computing…</source>
        <translation>正在计算…</translation>
    </message>
    <message>
        <source>Choose a link and run a sweep</source>
        <translation>请选择链路并运行扫描</translation>
    </message>
    <message>
        <source>Bandwidth sweep: %1</source>
        <translation>带宽扫描：%1</translation>
    </message>
    <message>
        <source>Sweep stopped; points computed: %1</source>
        <translation>扫描已停止；已计算的点：%1</translation>
    </message>
    <message>
        <source>Sweep of %1 done; points: %2</source>
        <translation>%1 的扫描已完成；点数：%2</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::TimelineChart</name>
    <message>
        <source>1F1B timeline</source>
        <translation>1F1B 时间线</translation>
    </message>
    <message>
        <source>Forward (light), backward (dark); gaps are bubbles</source>
        <translation>前向（浅色），反向（深色）；空隙为气泡</translation>
    </message>
    <message>
        <source>seconds</source>
        <translation>秒</translation>
    </message>
    <message>
        <source>No plan yet</source>
        <translation>尚无方案</translation>
    </message>
    <message>
        <source>No 1F1B schedule: serving replicas run one batch at a time</source>
        <translation>没有 1F1B 调度：推理副本一次处理一个批次</translation>
    </message>
    <message>
        <source>P%1 S%2</source>
        <translation>流水线%1 阶段%2</translation>
    </message>
    <message>
        <source>1F1B timeline: %1 simulated for the slowest pipeline · the planner optimises the cost model&apos;s estimate, %2</source>
        <translation>1F1B 时间线：最慢流水线模拟为 %1 · 规划器优化的是代价模型的估计值 %2</translation>
    </message>
    <message>
        <source>The planner ranks plans by the cost model&apos;s closed-form estimate (%1 here), which is fast enough to score thousands of candidates.
This chart replays the 1F1B schedule micro-batch by micro-batch (%2): a stage that waits for a slower neighbour — a backward pass held up behind a slower later stage — waits here but not in the estimate, so the two can differ.</source>
        <translation>规划器按代价模型的闭式估计值（此处为 %1）对方案排序，它足够快，可以评估成千上万个候选方案。
本图逐个微批次重放 1F1B 调度（%2）：一个阶段等待更慢的相邻阶段（例如反向传播被更慢的后续阶段拖住）时，本图会计入等待，而估计值不会，因此两者可能不同。</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::WhatIfPanel</name>
    <message>
        <source>Drag a slider to scale a bandwidth (0.1× to 10×). The current plan is re-evaluated at once and re-planned after a pause.</source>
        <translation>拖动滑块以缩放带宽（0.1× 至 10×）。当前方案会立即重新评估，并在停顿后重新规划。</translation>
    </message>
    <message>
        <source>Reset</source>
        <translation>重置</translation>
    </message>
    <message>
        <source>Put every bandwidth back as drawn</source>
        <translation>将所有带宽恢复为绘制时的值</translation>
    </message>
    <message>
        <source>Show re-planned plan</source>
        <translation>显示重新规划的方案</translation>
    </message>
    <message>
        <source>Plan first: the sliders change the bandwidths under a plan.</source>
        <translation>请先规划：滑块会改变方案所依赖的带宽。</translation>
    </message>
    <message>
        <source>Current plan as drawn: %1</source>
        <translation>按绘制的集群，当前方案：%1</translation>
    </message>
    <message>
        <source>Scale from 0.1× to 10× of the bandwidth as drawn</source>
        <translation>在绘制带宽的 0.1× 至 10× 之间缩放</translation>
    </message>
    <message>
        <source>×%1</source>
        <translation>×%1</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Current plan: %1 → %2 (%3%4 %), MFU %5 → %6; evaluated in %7 ms</source>
        <translation>当前方案：%1 → %2（%3%4%），MFU %5 → %6；评估用时 %7 毫秒</translation>
    </message>
    <message>
        <source>Re-planning after a pause…</source>
        <translation>停顿后将重新规划…</translation>
    </message>
    <message>
        <source>Re-planning found nothing: %1</source>
        <translation>重新规划未找到方案：%1</translation>
    </message>
    <message>
        <source>Re-planned: %1 (as drawn: %2, current plan here: %3); %4</source>
        <translation>重新规划：%1（按绘制：%2，当前方案在此：%3）；%4</translation>
    </message>
    <message>
        <source>same strategy</source>
        <translation>策略相同</translation>
    </message>
    <message>
        <source>the strategy changed</source>
        <translation>策略已改变</translation>
    </message>
</context>
</TS>
