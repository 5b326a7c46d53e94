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
    <message>
        <source>Fold pre-flight into cluster</source>
        <translation>将预检结果并入集群</translation>
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
    <name>hetplan::gui::HostsDialog</name>
    <message>
        <source>Hosts</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>Where each machine runs when launching. Several machines may share a host. Leave Identity empty to use the SSH agent; passwords are never used.</source>
        <translation>启动时每台机器在哪里运行。多台机器可以共用一台主机。身份留空则使用 SSH 代理；从不使用密码。</translation>
    </message>
    <message>
        <source>Machine</source>
        <translation>机器</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>端口</translation>
    </message>
    <message>
        <source>User</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>Identity</source>
        <translation>身份</translation>
    </message>
    <message>
        <source>Work folder</source>
        <translation>工作目录</translation>
    </message>
    <message>
        <source>Worker</source>
        <translation>工作进程</translation>
    </message>
    <message>
        <source>A private key file (~/ is your home folder); empty: the SSH agent</source>
        <translation>私钥文件（~/ 表示主目录）；留空：使用 SSH 代理</translation>
    </message>
    <message>
        <source>On the host: where plans are uploaded and ranks run</source>
        <translation>主机上：上传规划并运行各进程的目录</translation>
    </message>
    <message>
        <source>On the host: the hetplan-worker executable to start</source>
        <translation>主机上：要启动的 hetplan-worker 可执行文件</translation>
    </message>
    <message>
        <source>&amp;Import…</source>
        <translation>导入(&amp;I)…</translation>
    </message>
    <message>
        <source>&amp;Export…</source>
        <translation>导出(&amp;E)…</translation>
    </message>
    <message>
        <source>Import Hosts</source>
        <translation>导入主机</translation>
    </message>
    <message>
        <source>Hosts files (*.json);;All files (*)</source>
        <translation>主机文件 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Export Hosts</source>
        <translation>导出主机</translation>
    </message>
    <message>
        <source>%1 has no host for machine %2; those rows are unchanged.</source>
        <translation>%1 中没有机器 %2 的主机；这些行保持不变。</translation>
    </message>
    <message>
        <source>machine %1: port: &quot;%2&quot; is not a number; valid: 1–65535</source>
        <translation>机器 %1：端口：&quot;%2&quot; 不是数字；有效值：1–65535</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::HostsTableEdits</name>
    <message>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <source>Fill &amp;Down</source>
        <translation>向下填充(&amp;D)</translation>
    </message>
    <message>
        <source>Copy the top selected cell of each column to the selected cells below it (one cell: the cell above)</source>
        <translation>将每列选中的最上方单元格复制到其下方选中的单元格（只选一个单元格时：复制上方单元格）</translation>
    </message>
    <message>
        <source>Edit %1</source>
        <translation>编辑%1</translation>
    </message>
    <message>
        <source>Fill Down</source>
        <translation>向下填充</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::LaunchActions</name>
    <message>
        <source>Launch</source>
        <translation>启动</translation>
    </message>
    <message>
        <source>Measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>&amp;Hosts…</source>
        <translation>主机(&amp;H)…</translation>
    </message>
    <message>
        <source>&amp;Launch…</source>
        <translation>启动(&amp;L)…</translation>
    </message>
    <message>
        <source>Map each machine to the SSH host it runs on</source>
        <translation>将每台机器映射到其运行的 SSH 主机</translation>
    </message>
    <message>
        <source>Run the shown plan on its hosts over SSH and measure it</source>
        <translation>通过 SSH 在各主机上运行当前规划并测量</translation>
    </message>
    <message numerus="yes">
        <source>%n rank(s) on %1</source>
        <translation>
            <numerusform>%1 上的 %n 个进程</numerusform>
        </translation>
    </message>
    <message>
        <source>Unknown Host Key</source>
        <translation>未知的主机密钥</translation>
    </message>
    <message>
        <source>The host %1 is not in your known hosts file.</source>
        <translation>主机 %1 不在您的已知主机文件中。</translation>
    </message>
    <message>
        <source>Its %1 key has the fingerprint
%2

Accept it only if the host&apos;s administrator confirms this fingerprint; it is then added to the known hosts file.</source>
        <translation>其 %1 密钥的指纹为
%2

仅当主机管理员确认此指纹时才接受；接受后它会被加入已知主机文件。</translation>
    </message>
    <message>
        <source>&amp;Accept</source>
        <translation>接受(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Reject</source>
        <translation>拒绝(&amp;R)</translation>
    </message>
    <message>
        <source>The host key of %1 was rejected; nothing was started.</source>
        <translation>已拒绝 %1 的主机密钥；未启动任何进程。</translation>
    </message>
    <message>
        <source>Job Running</source>
        <translation>作业正在运行</translation>
    </message>
    <message>
        <source>A launched job is still running. Stop every rank and quit?</source>
        <translation>已启动的作业仍在运行。要停止所有进程并退出吗？</translation>
    </message>
    <message>
        <source>&amp;Probe Cluster…</source>
        <translation>探测集群(&amp;P)…</translation>
    </message>
    <message>
        <source>Measure the hosts&apos; GPUs and links with hetplan-probe and save the probe file</source>
        <translation>用 hetplan-probe 测量各主机的 GPU 和链路并保存探测文件</translation>
    </message>
    <message>
        <source>Probe of %1</source>
        <translation>%1 的探测</translation>
    </message>
    <message>
        <source>Save Probe</source>
        <translation>保存探测结果</translation>
    </message>
    <message>
        <source>Probe files (*.probe.json);;All files (*)</source>
        <translation>探测文件 (*.probe.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>the plan shown</source>
        <translation>当前显示的计划</translation>
    </message>
    <message>
        <source>Probe Cluster</source>
        <translation>探测集群</translation>
    </message>
    <message>
        <source>probing with the GEMM shapes of %1 (micro-batch %2, sequence %3)</source>
        <translation>使用 %1 的 GEMM 形状进行探测（微批 %2，序列长度 %3）</translation>
    </message>
    <message>
        <source>probe file saved to %1</source>
        <translation>探测文件已保存到 %1</translation>
    </message>
    <message>
        <source>%1 offered the %2 key %3, which the known hosts file lacks: waiting for you to accept or reject it</source>
        <translation>%1 提供了 %2 密钥 %3，已知主机文件中没有它：等待您接受或拒绝</translation>
    </message>
    <message>
        <source>accepted the %1 key %2 of %3; connecting again</source>
        <translation>已接受 %3 的 %1 密钥 %2；重新连接</translation>
    </message>
    <message>
        <source>the launched run</source>
        <translation>启动的运行</translation>
    </message>
    <message numerus="yes">
        <source>Pre-flight of %n rank(s) on %1</source>
        <translation>
            <numerusform>预检 %1 上的 %n 个进程</numerusform>
        </translation>
    </message>
    <message>
        <source>served %1 of %2 requests</source>
        <translation>已服务 %1 / %2 个请求</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::LaunchLog</name>
    <message>
        <source>Job</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>rank %1 · %2</source>
        <translation>rank %1 · %2</translation>
    </message>
    <message>
        <source>What the job does: its phases and messages</source>
        <translation>作业正在做什么：各阶段及消息</translation>
    </message>
    <message>
        <source>Rank %1 on machine %2, host %3</source>
        <translation>rank %1，机器 %2，主机 %3</translation>
    </message>
    <message>
        <source>Machines %1; ranks %2</source>
        <translation>机器 %1；rank %2</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::LaunchPanel</name>
    <message>
        <source>No job yet: Tools › Launch runs the shown plan on its hosts.</source>
        <translation>尚无作业：工具 › 启动 会在各主机上运行当前规划。</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>By host</source>
        <translation>按主机</translation>
    </message>
    <message>
        <source>Filter lines</source>
        <translation>筛选行</translation>
    </message>
    <message>
        <source>One pane per host instead of one per rank</source>
        <translation>每台主机一个窗格，而不是每个进程一个</translation>
    </message>
    <message>
        <source>Divides the model&apos;s head dimension, FFN width, vocabulary and sequence length</source>
        <translation>将模型的注意力头维度、FFN 宽度、词表和序列长度除以此值</translation>
    </message>
    <message>
        <source>Scale</source>
        <translation>缩放</translation>
    </message>
    <message>
        <source>Iterations</source>
        <translation>迭代次数</translation>
    </message>
    <message>
        <source>connecting</source>
        <translation>正在连接</translation>
    </message>
    <message>
        <source>uploading</source>
        <translation>正在上传</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>done</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>%1 · %2 · %3</source>
        <translation>%1 · %2 · %3</translation>
    </message>
    <message numerus="yes">
        <source>cancelling: stopping every rank on %n host(s)…</source>
        <translation>
            <numerusform>正在取消：停止 %n 台主机上的所有 rank…</numerusform>
        </translation>
    </message>
    <message>
        <source>cancelled: every rank was stopped; stopping took %1</source>
        <translation>已取消：所有 rank 均已停止；停止用时 %1</translation>
    </message>
    <message>
        <source>%1 after %2</source>
        <translation>%2 后%1</translation>
    </message>
    <message numerus="yes">
        <source>connecting to %n host(s) and checking them: %1</source>
        <translation>
            <numerusform>正在连接并检查 %n 台主机：%1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>uploading the job&apos;s files to %n host(s): %1</source>
        <translation>
            <numerusform>正在向 %n 台主机上传作业文件：%1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>running %n rank(s) on %1</source>
        <translation>
            <numerusform>正在运行 %n 个 rank：%1</numerusform>
        </translation>
    </message>
    <message>
        <source>cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>Nothing printed yet</source>
        <translation>尚无输出</translation>
    </message>
    <message>
        <source>%1 (rank %2)</source>
        <translation>%1（rank %2）</translation>
    </message>
    <message>
        <source>%1 (ranks %2)</source>
        <translation>%1（rank %2）</translation>
    </message>
    <message>
        <source>Pre-flight first</source>
        <translation>先预检</translation>
    </message>
    <message>
        <source>Before launching, check every group&apos;s link at the plan&apos;s message sizes and show what each achieved beside what the plan assumes</source>
        <translation>启动前按计划的消息大小检查每个通信组的链路，并将实测结果与计划的假设并列显示</translation>
    </message>
    <message>
        <source>How many requests the replicas serve</source>
        <translation>副本要服务的请求数</translation>
    </message>
    <message>
        <source> /s</source>
        <translation> /秒</translation>
    </message>
    <message>
        <source>Poisson arrivals at this rate; it starts at the workload&apos;s</source>
        <translation>按此速率的泊松到达；初始值取自工作负载</translation>
    </message>
    <message>
        <source>Seeds the arrivals and the sampling</source>
        <translation>到达过程与采样的随机种子</translation>
    </message>
    <message>
        <source>Requests</source>
        <translation>请求数</translation>
    </message>
    <message>
        <source>Rate</source>
        <translation>速率</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>种子</translation>
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
        <source>Import &amp;Measurements…</source>
        <translation>导入测量结果(&amp;M)…</translation>
    </message>
    <message>
        <source>Import Measurement &amp;Folder…</source>
        <translation>导入测量结果文件夹(&amp;F)…</translation>
    </message>
    <message>
        <source>Import Measurements</source>
        <translation>导入测量结果</translation>
    </message>
    <message>
        <source>Measurements (*.json *.log *.txt *.out);;All files (*)</source>
        <translation>测量结果 (*.json *.log *.txt *.out);;所有文件 (*)</translation>
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
    <name>hetplan::gui::MeasuredView</name>
    <message>
        <source>What</source>
        <translation>项目</translation>
    </message>
    <message>
        <source>Predicted</source>
        <translation>预测</translation>
    </message>
    <message>
        <source>Measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>误差</translation>
    </message>
    <message>
        <source>No run measured yet: Tools › Launch runs the shown plan and shows its measured times here.</source>
        <translation>尚无实测运行：工具 › 启动 会运行当前规划，并在此显示实测时间。</translation>
    </message>
    <message numerus="yes">
        <source>Measured on %n host(s) (%1, scale %2, %3 iterations): %4 per iteration.</source>
        <translation>
            <numerusform>在 %n 台主机上实测（%1，缩放 %2，%3 次迭代）：每次迭代 %4。</numerusform>
        </translation>
    </message>
    <message>
        <source>The run used CPU ranks or a scaled-down model, so the errors mean little unless the cluster describes what ran.</source>
        <translation>本次运行使用了 CPU 进程或缩小的模型，因此除非集群描述的就是实际运行的硬件，误差意义不大。</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::MeasurementImport</name>
    <message>
        <source>Import Measurements</source>
        <translation>导入测量结果</translation>
    </message>
    <message>
        <source>Import Report</source>
        <translation>导入报告</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::PreflightDialog</name>
    <message>
        <source>%1: rank %2 on %3</source>
        <translation>%1：进程 %2，位于 %3</translation>
    </message>
    <message>
        <source>%1 within %2</source>
        <translation>%2 内的 %1</translation>
    </message>
    <message>
        <source>%1 MiB</source>
        <translation>%1 MiB</translation>
    </message>
    <message>
        <source>%1 KiB</source>
        <translation>%1 KiB</translation>
    </message>
    <message>
        <source>%1 B</source>
        <translation>%1 B</translation>
    </message>
    <message>
        <source>&amp;Launch Anyway</source>
        <translation>仍然启动(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Fold into Cluster and Re-plan</source>
        <translation>并入集群并重新规划(&amp;F)</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Pre-flight</source>
        <translation>预检</translation>
    </message>
    <message>
        <source>Group</source>
        <translation>通信组</translation>
    </message>
    <message>
        <source>Members</source>
        <translation>成员</translation>
    </message>
    <message>
        <source>Transport</source>
        <translation>传输</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>Achieved</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>Latency</source>
        <translation>延迟</translation>
    </message>
    <message>
        <source>Assumed</source>
        <translation>假设</translation>
    </message>
    <message>
        <source>Assumed latency</source>
        <translation>假设延迟</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>结论</translation>
    </message>
    <message numerus="yes">
        <source>Write the %n measured pair(s) between machines into the cluster as measured figures (source pre-flight) and plan again; one Undo restores both</source>
        <translation>
            <numerusform>将机器间 %n 对实测结果作为实测值（来源：预检）写入集群并重新规划；一次撤销即可恢复两者</numerusform>
        </translation>
    </message>
    <message>
        <source>No pair between two machines was measured</source>
        <translation>未测到任何两台机器之间的 GPU 对</translation>
    </message>
    <message>
        <source>Start the job on the cluster as it is</source>
        <translation>在当前集群上启动作业</translation>
    </message>
    <message>
        <source>ok</source>
        <translation>正常</translation>
    </message>
    <message>
        <source>slow by %1</source>
        <translation>慢 %1</translation>
    </message>
    <message>
        <source>hung: %1</source>
        <translation>挂起：%1</translation>
    </message>
    <message>
        <source>failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <source>The job failed: %1</source>
        <translation>作业失败：%1</translation>
    </message>
    <message>
        <source>Slow: achieved under half of what the plan assumes, so the plan&apos;s prediction is too optimistic there.</source>
        <translation>慢：实测不到计划假设的一半，因此计划在该处的预测过于乐观。</translation>
    </message>
    <message>
        <source>Launch Anyway</source>
        <translation>仍然启动</translation>
    </message>
    <message>
        <source>%1 of the checks hung or failed: the job will most likely hang or fail the same way.</source>
        <translation>有 %1 项检查挂起或失败：作业很可能以同样的方式挂起或失败。</translation>
    </message>
    <message>
        <source>Launch anyway?</source>
        <translation>仍然启动吗？</translation>
    </message>
    <message>
        <source>&amp;Launch</source>
        <translation>启动(&amp;L)</translation>
    </message>
    <message>
        <source>%1 over %2</source>
        <translation>%1，经 %2</translation>
    </message>
    <message>
        <source>Checks: %1 ok, %2 slow, %3 hung or failed; the pre-flight took %4 s.</source>
        <translation>检查：%1 项正常，%2 项慢，%3 项挂起或失败；预检耗时 %4 秒。</translation>
    </message>
    <message>
        <source>Transport: %1.</source>
        <translation>传输：%1。</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::PreflightStep</name>
    <message>
        <source>launching after the pre-flight</source>
        <translation>预检后启动</translation>
    </message>
    <message>
        <source>not launched: cancelled after the pre-flight</source>
        <translation>未启动：预检后已取消</translation>
    </message>
    <message>
        <source>The pre-flight measured no pair between two machines: nothing to fold.</source>
        <translation>预检未测到任何两台机器之间的 GPU 对：没有可并入的结果。</translation>
    </message>
    <message>
        <source>Fold pre-flight into cluster</source>
        <translation>将预检结果并入集群</translation>
    </message>
    <message>
        <source>Fold Pre-flight</source>
        <translation>并入预检结果</translation>
    </message>
    <message numerus="yes">
        <source>Folded %n measured pair(s) into the cluster (source pre-flight) and planning again; Edit › Undo restores the cluster and the plan.</source>
        <translation>
            <numerusform>已将 %n 对实测结果并入集群（来源：预检）并重新规划；编辑 › 撤销可恢复集群和计划。</numerusform>
        </translation>
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
