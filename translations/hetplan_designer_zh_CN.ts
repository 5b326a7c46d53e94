<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>ClusterCommand</name>
    <message>
        <source>machine</source>
        <translation>机器</translation>
    </message>
    <message>
        <source>switch</source>
        <translation>交换机</translation>
    </message>
    <message>
        <source>link</source>
        <translation>链路</translation>
    </message>
    <message>
        <source>Add %1 %2</source>
        <translation>添加%1 %2</translation>
    </message>
    <message numerus="yes">
        <source>Delete %n item(s)</source>
        <translation>
            <numerusform>删除 %n 项</numerusform>
        </translation>
    </message>
    <message>
        <source>Edit %1 %2</source>
        <translation>编辑%1 %2</translation>
    </message>
    <message numerus="yes">
        <source>Add %n copies</source>
        <translation>
            <numerusform>添加 %n 个副本</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Duplicate %n node(s)</source>
        <translation>
            <numerusform>复制 %n 个节点</numerusform>
        </translation>
    </message>
    <message>
        <source>Edit cluster properties</source>
        <translation>编辑集群属性</translation>
    </message>
    <message numerus="yes">
        <source>Move %n node(s)</source>
        <translation>
            <numerusform>移动 %n 个节点</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Languages</name>
    <message>
        <source>System</source>
        <translation>跟随系统</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::ClusterModel</name>
    <message>
        <source>Calibrate from measurement</source>
        <translation>根据测量结果校准</translation>
    </message>
    <message>
        <source>A link joins two machines or switches of the cluster.</source>
        <translation>链路只能连接本集群中的两台机器或交换机。</translation>
    </message>
    <message>
        <source>A link joins two different nodes; %1 cannot link to itself.</source>
        <translation>链路连接两个不同的节点；%1 不能连接到自身。</translation>
    </message>
    <message>
        <source>The machine to edit no longer exists.</source>
        <translation>要编辑的机器已不存在。</translation>
    </message>
    <message>
        <source>The switch to edit no longer exists.</source>
        <translation>要编辑的交换机已不存在。</translation>
    </message>
    <message>
        <source>The link to edit no longer exists.</source>
        <translation>要编辑的链路已不存在。</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::Document</name>
    <message>
        <source>Choose model %1</source>
        <translation>选择模型 %1</translation>
    </message>
    <message>
        <source>Change workload</source>
        <translation>更改工作负载</translation>
    </message>
    <message>
        <source>Choose planner %1</source>
        <translation>选择规划器 %1</translation>
    </message>
    <message>
        <source>Choose cost model %1</source>
        <translation>选择代价模型 %1</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::HelpMenu</name>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Quick Start</source>
        <translation>快速入门(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Keyboard Shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <source>&amp;About HetPlan</source>
        <translation>关于 HetPlan(&amp;A)</translation>
    </message>
    <message>
        <source>&lt;h3&gt;HetPlan %1&lt;/h3&gt;&lt;p&gt;Plans parallel training and serving of large language models on heterogeneous GPU fleets.&lt;/p&gt;&lt;p&gt;Built with Qt %2, running on Qt %3.&lt;/p&gt;&lt;p&gt;Documentation: &lt;a href=&quot;%4&quot;&gt;the HetPlan README&lt;/a&gt; (also in the source tree&apos;s README.md and docs/ folder).&lt;/p&gt;</source>
        <translation>&lt;h3&gt;HetPlan %1&lt;/h3&gt;&lt;p&gt;在异构 GPU 集群上规划大语言模型的并行训练与推理服务。&lt;/p&gt;&lt;p&gt;使用 Qt %2 构建，运行于 Qt %3。&lt;/p&gt;&lt;p&gt;文档：&lt;a href=&quot;%4&quot;&gt;HetPlan 自述文件&lt;/a&gt;（也见源代码树中的 README.md 和 docs/ 目录）。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>About HetPlan</source>
        <translation>关于 HetPlan</translation>
    </message>
    <message>
        <source>Quick Start</source>
        <translation>快速入门</translation>
    </message>
    <message>
        <source>HetPlan README</source>
        <translation>HetPlan 自述文件</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>操作</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>按键</translation>
    </message>
    <message>
        <source>Keyboard Shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::MainWindow</name>
    <message>
        <source>&amp;Tools</source>
        <translation>工具(&amp;T)</translation>
    </message>
    <message>
        <source>Palette</source>
        <translation>组件面板</translation>
    </message>
    <message>
        <source>Inspector</source>
        <translation>属性检查器</translation>
    </message>
    <message>
        <source>Workload</source>
        <translation>工作负载</translation>
    </message>
    <message>
        <source>%1[*] — HetPlan</source>
        <translation>%1[*] — HetPlan</translation>
    </message>
    <message numerus="yes">
        <source>%n GPU(s)</source>
        <translation>
            <numerusform>%n 个 GPU</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n machine(s)</source>
        <translation>
            <numerusform>%n 台机器</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 TFLOPS</source>
        <translation>%1 TFLOPS</translation>
    </message>
    <message>
        <source>Unsaved Changes</source>
        <translation>未保存的更改</translation>
    </message>
    <message>
        <source>“%1” has unsaved changes. Save them first?</source>
        <translation>“%1”有未保存的更改。要先保存吗？</translation>
    </message>
    <message>
        <source>Recover Unsaved Changes</source>
        <translation>恢复未保存的更改</translation>
    </message>
    <message>
        <source>HetPlan was closed with unsaved changes in an untitled project. Recover them?</source>
        <translation>HetPlan 关闭时，一个未命名项目中有未保存的更改。要恢复吗？</translation>
    </message>
    <message>
        <source>HetPlan was closed with unsaved changes to “%1”. Recover them?</source>
        <translation>HetPlan 关闭时，“%1”有未保存的更改。要恢复吗？</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Open Example</source>
        <translation>打开示例</translation>
    </message>
    <message>
        <source>HetPlan projects and clusters (*.json);;All files (*)</source>
        <translation>HetPlan 项目和集群 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <source>Save As</source>
        <translation>另存为</translation>
    </message>
    <message>
        <source>HetPlan projects (*.hetplan.json);;All files (*)</source>
        <translation>HetPlan 项目 (*.hetplan.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Import Cluster</source>
        <translation>导入集群</translation>
    </message>
    <message>
        <source>Cluster files (*.json);;All files (*)</source>
        <translation>集群文件 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Export Cluster</source>
        <translation>导出集群</translation>
    </message>
    <message>
        <source>Cluster files (*.cluster.json);;All files (*)</source>
        <translation>集群文件 (*.cluster.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>&amp;New</source>
        <translation>新建(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <source>Save &amp;As…</source>
        <translation>另存为(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Import Cluster…</source>
        <translation>导入集群(&amp;I)…</translation>
    </message>
    <message>
        <source>&amp;Export Cluster…</source>
        <translation>导出集群(&amp;E)…</translation>
    </message>
    <message>
        <source>Se&amp;ttings…</source>
        <translation>设置(&amp;T)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>Open E&amp;xample</source>
        <translation>打开示例(&amp;X)</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Panels</source>
        <translation>面板(&amp;P)</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <source>&amp;Clear Menu</source>
        <translation>清除菜单(&amp;C)</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>语言(&amp;L)：</translation>
    </message>
    <message>
        <source>A new language applies the next time HetPlan starts.</source>
        <translation>新的语言将在下次启动 HetPlan 时生效。</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>How often unsaved changes are saved aside for crash recovery</source>
        <translation>多久把未保存的更改另存一次，以便崩溃后恢复</translation>
    </message>
    <message>
        <source>&amp;Autosave every:</source>
        <translation>自动保存间隔(&amp;A)：</translation>
    </message>
    <message>
        <source>&amp;Re-plan automatically after edits</source>
        <translation>编辑后自动重新规划(&amp;R)</translation>
    </message>
    <message>
        <source>Off: an edit marks the plan out of date until you press Re-evaluate or Re-plan</source>
        <translation>关闭时：编辑会把方案标记为已过时，直到您按下“重新评估”或“重新规划”</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::WorkloadPanel</name>
    <message>
        <source>%1 layers, hidden %2, %3 heads, %4 B parameters</source>
        <translation>%1 层，隐藏维度 %2，%3 个注意力头，%4 B 参数</translation>
    </message>
    <message>
        <source>From a model file…</source>
        <translation>从模型文件…</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Inference</source>
        <translation>推理</translation>
    </message>
    <message>
        <source>&amp;Model:</source>
        <translation>模型(&amp;M)：</translation>
    </message>
    <message>
        <source>M&amp;ode:</source>
        <translation>模式(&amp;O)：</translation>
    </message>
    <message>
        <source>Sequences per iteration, over all pipelines</source>
        <translation>每次迭代的序列数（所有流水线合计）</translation>
    </message>
    <message>
        <source>Sequences per micro-batch</source>
        <translation>每个微批次的序列数</translation>
    </message>
    <message>
        <source> tokens</source>
        <translation> 个 token</translation>
    </message>
    <message>
        <source>None</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Selective</source>
        <translation>选择性</translation>
    </message>
    <message>
        <source>Full</source>
        <translation>完全</translation>
    </message>
    <message>
        <source>Activation recomputation: less memory, more compute</source>
        <translation>激活重计算：用更多计算换更少显存</translation>
    </message>
    <message>
        <source>&amp;Global batch:</source>
        <translation>全局批大小(&amp;G)：</translation>
    </message>
    <message>
        <source>Mi&amp;cro-batch:</source>
        <translation>微批次大小(&amp;C)：</translation>
    </message>
    <message>
        <source>&amp;Sequence length:</source>
        <translation>序列长度(&amp;S)：</translation>
    </message>
    <message>
        <source>&amp;Precision:</source>
        <translation>精度(&amp;P)：</translation>
    </message>
    <message>
        <source>&amp;Recomputation:</source>
        <translation>重计算(&amp;R)：</translation>
    </message>
    <message>
        <source> req/s</source>
        <translation> 请求/秒</translation>
    </message>
    <message>
        <source>Latency target per request (HexGen&apos;s SLO)</source>
        <translation>每个请求的延迟目标（HexGen 的 SLO）</translation>
    </message>
    <message>
        <source>× reference latency</source>
        <translation>× 参考延迟</translation>
    </message>
    <message>
        <source>seconds</source>
        <translation>秒</translation>
    </message>
    <message>
        <source>A multiple of one request&apos;s latency on 4 A100-40G (HexGen §5.1), or seconds</source>
        <translation>单个请求在 4 块 A100-40G 上的延迟的倍数（HexGen §5.1），或秒数</translation>
    </message>
    <message>
        <source>= %1 × the reference latency (%2)</source>
        <translation>= 参考延迟（%2）的 %1 倍</translation>
    </message>
    <message>
        <source>= %1 (%2 × the reference latency, %3)</source>
        <translation>= %1（参考延迟 %3 的 %2 倍）</translation>
    </message>
    <message>
        <source>Pro&amp;mpt length:</source>
        <translation>提示长度(&amp;M)：</translation>
    </message>
    <message>
        <source>O&amp;utput length:</source>
        <translation>输出长度(&amp;U)：</translation>
    </message>
    <message>
        <source>Request &amp;rate:</source>
        <translation>请求速率(&amp;R)：</translation>
    </message>
    <message>
        <source>Latency &amp;target:</source>
        <translation>延迟目标(&amp;T)：</translation>
    </message>
    <message>
        <source>Pr&amp;ecision:</source>
        <translation>精度(&amp;E)：</translation>
    </message>
    <message>
        <source>Model File</source>
        <translation>模型文件</translation>
    </message>
    <message>
        <source>Model files (*.json);;All files (*)</source>
        <translation>模型文件 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Change mode</source>
        <translation>更改模式</translation>
    </message>
    <message>
        <source>Change global batch</source>
        <translation>更改全局批大小</translation>
    </message>
    <message>
        <source>Change micro-batch</source>
        <translation>更改微批大小</translation>
    </message>
    <message>
        <source>Change sequence length</source>
        <translation>更改序列长度</translation>
    </message>
    <message>
        <source>Change prompt length</source>
        <translation>更改提示长度</translation>
    </message>
    <message>
        <source>Change output length</source>
        <translation>更改输出长度</translation>
    </message>
    <message>
        <source>Change request rate</source>
        <translation>更改请求速率</translation>
    </message>
    <message>
        <source>Change latency target</source>
        <translation>更改延迟目标</translation>
    </message>
    <message>
        <source>Change recomputation</source>
        <translation>更改重计算</translation>
    </message>
    <message>
        <source>Change precision</source>
        <translation>更改精度</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Designs heterogeneous GPU clusters and plans LLM training and serving on them.</source>
        <translation>设计异构 GPU 集群，并在其上规划大语言模型的训练与推理服务。</translation>
    </message>
    <message>
        <source>A project or cluster file.</source>
        <translation>项目或集群文件。</translation>
    </message>
    <message>
        <source>Plan the case study (or the file or example given), save pictures of the window&apos;s parts into &lt;directory&gt; and quit.</source>
        <translation>规划案例研究（或所给的文件或示例），将窗口各部分的截图保存到 &lt;directory&gt; 后退出。</translation>
    </message>
    <message>
        <source>Use &lt;language&gt; (en, zh_CN) instead of the setting.</source>
        <translation>使用 &lt;language&gt;（en、zh_CN）代替设置中的语言。</translation>
    </message>
    <message>
        <source>Open the bundled example &lt;name&gt; (e.g. large-cluster).</source>
        <translation>打开内置示例 &lt;name&gt;（如 large-cluster）。</translation>
    </message>
</context>
</TS>
